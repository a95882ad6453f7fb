/**
 * Chinese text for every "your host" importer message key of src/cluster/own-host/messages.ts
 * (same keys, same {params}). A test checks that none is missing. Commands, options, field names
 * and example values stay as the tools print them.
 */
import type { OwnHostErrorKey } from '../../cluster/own-host/messages.ts';

export const OWN_HOST_ERRORS_ZH: Readonly<Record<OwnHostErrorKey, string>> = {
  'json.invalid': '不是有效的 JSON：{error}；请粘贴命令的完整输出',
  'json.not-array': '`{command}` 输出的是 JSON 数组（[...]），这段文本不是',
  'addr.not-object': '每个网卡应是一个 JSON 对象',
  'addr.ifname': '网卡需要名字（ifname），例如 "eth0"',
  'addr.addr-info': 'addr_info 应是地址列表',
  'addr.local': '地址需要 IP（local），例如 "192.168.50.38"',
  'addr.prefixlen': '前缀长度应是 0..{max} 之间的整数',
  'route.not-object': '每条路由应是一个 JSON 对象',
  'route.dst': '路由需要目的地址（dst）："default" 或 "10.244.1.0/24" 这样的前缀',
  'route.metric': 'metric 应是非负整数',
  'route.nexthops': 'nexthops 应是列表',
  'route.nexthop-gateway': '每个下一跳都需要网关（gateway）',
  'route.local-table': '内核的 local 表：实验室根据地址自行生成',
  'route.multicast': '实验室不模拟组播路由',
  'route.throw': '实验室不模拟策略路由（throw）',
  'route.nat': '实验室不模拟 nat 路由',
  'route.type': '实验室不模拟 {type} 类型的路由',
  'route.table': '表 {table}：实验室不模拟策略路由（ip rule），只使用 main 表',
  'route.connected': '地址的直连路由：实验室根据地址自行添加',
  'not-ip': "'{value}' 不是 IP 地址",
  'ipset.verb': "'{verb}'：ipset save 只输出 create 和 add 行；这是 ipset save 的完整输出吗？",
  'ipset.create-needs': 'create 需要集合名和类型',
  'ipset.add-needs': 'add 需要集合名和条目',
  'ipset.twice': '集合 {name} 被创建了两次',
  'ipset.add-first': '向 {name} 添加条目的 add 行出现在它的 create 行之前',
  'ipset.type': '集合类型 {type}：实验室只匹配 {supported}',
  'ipset.nomatch': '实验室不模拟 nomatch 条目（hash:net 集合中的例外）',
  'ipvsadm.not-numeric':
    "'{value}' 不是数字形式的 ADDRESS:PORT（10.96.0.10:53、[fd00::10]:53）；不带 -n 的 ipvsadm 会输出名字：请粘贴 {command} 的输出",
  'ipvsadm.mask': '实验室不模拟会话保持掩码 {value}：每个客户端地址只保留一个会话保持模板',
  'ipvsadm.pe': '实验室不模拟会话保持引擎 {value}：会话保持按客户端地址进行',
  'ipvsadm.ops': '实验室不模拟单包调度（ops）：同一客户端的 UDP 数据报共用一个连接',
  'ipvsadm.sched-flags': '实验室不模拟调度器标志 {flag} {value}',
  'ipvsadm.service-twice': '这个虚拟服务已在第 {line} 行定义过',
  'ipvsadm.server-twice': '这个真实服务器已在第 {line} 行的服务中',
  'ipvsadm.fwm':
    '实验室不模拟防火墙标记虚拟服务（FWM，-f）：kube-proxy 不创建这种服务；带这个标记的包在追踪中不做负载均衡',
  'ipvsadm.method.route':
    '实验室只模拟 kube-proxy 使用的 Masq，不模拟直接路由（Route，-g）：调度到这个服务器的连接在追踪中停在这里',
  'ipvsadm.method.tunnel':
    '实验室只模拟 kube-proxy 使用的 Masq，不模拟 IP-in-IP 隧道（Tunnel，-i）：调度到这个服务器的连接在追踪中停在这里',
  'ipvsadm.method.local':
    '实验室只模拟 kube-proxy 使用的 Masq，不模拟不做 NAT 的本地交付（Local）：调度到这个服务器的连接在追踪中停在这里',
  'ipvsadm-Ln.flag': "'{flag}' 不是 ipvsadm -Ln 会输出的标志（persistent、mask、pe、ops）",
  'ipvsadm-Ln.counters':
    '这是带 {columns} 列的列表（ipvsadm -Ln --stats、--rate、--thresholds 或 --persistent-conn）：其中没有权重和转发方式；请粘贴 ipvsadm -Ln 的输出',
  'ipvsadm-Ln.line':
    "'{word}' 不是 ipvsadm -Ln 中任何一行的开头（服务行：TCP、UDP、SCTP；真实服务器行：->）",
  'ipvsadm-Ln.scheduler': '虚拟服务行应以调度器（rr）结尾',
  'ipvsadm-Ln.server-first': '真实服务器（->）出现在所有虚拟服务行（TCP、UDP、SCTP）之前',
  'ipvsadm-Ln.forward': "'{value}' 不是转发方式（Masq、Route、Tunnel、Local）",
  'ipvsadm-Ln.weight': "'{value}' 不是权重（0..65535）",
  'ipvsadm-Ln.counts': '真实服务器行应以 ActiveConn 和 InActConn 计数结尾',
  'ipvsadm-S.needs-service': '{option} 后面需要虚拟服务（ADDRESS:PORT）',
  'ipvsadm-S.needs-scheduler': '{option} 后面需要调度器名（rr）',
  'ipvsadm-S.needs-server': '{option} 后面需要真实服务器（ADDRESS:PORT）',
  'ipvsadm-S.weight': '{option} 后面应是权重 0..65535',
  'ipvsadm-S.option':
    "'{option}' 不是 ipvsadm -S 会输出的选项（-t、-u、--sctp-service、-s、-p、-r、-m、-g、-i、-w）",
  'ipvsadm-S.command':
    "'{word}'：ipvsadm -S 只输出 -A（虚拟服务）和 -a（真实服务器）行；这是 ipvsadm -S -n 的完整输出吗？",
  'ipvsadm-S.no-service': '{command} 需要指明虚拟服务：-t、-u 或 --sctp-service ADDRESS:PORT',
  'ipvsadm-S.no-server': '-a 需要指明真实服务器：-r ADDRESS:PORT',
  'ipvsadm-S.server-first': '这个真实服务器（-a）所属的虚拟服务在它之前没有 -A 行定义',
  'rules.unsupported': '{what}：实验室不对它求值；到达这里的包会停在这里',
  'dump.unknown':
    '不是实验室认识的输出：请粘贴 iptables-save、ip6tables-save、nft list ruleset、ip -j addr、ip -j route、ipset save 或 ipvsadm -Ln 的输出（或手动选择它的类型）',
  'dump.second': '又一份 {kind} 输出：主机只能有一份；请移除其中一份',
  'dump.second-ipvsadm': '又一份 ipvsadm 输出：主机只有一张 IPVS 表；请移除其中一份',
  'dump.twice':
    '表 {family} {table} 属于 iptables-nft，与 {tool}-save 输出中的规则相同：主机会把它们执行两次；请从这份输出中删除它（或移除 iptables-save 输出）',
  'form.no-addresses': '请给出主机的地址（没有提供 ip -j addr 输出），例如 192.168.50.38/24',
  'form.address': "'{value}' 不是带前缀长度的地址，例如 192.168.50.38/24",
  'form.gateway': "'{value}' 不是 IP 地址，例如 192.168.50.1",
  'form.listener': "第 {line} 行：'{text}'：格式应为 进程 协议 地址:端口，例如 sshd tcp 0.0.0.0:22",
  'packet.port': "'{value}'：端口应是 1 到 65535 之间的整数",
  'packet.dst': "'{value}' 不是 IP 地址，例如 192.168.50.100",
  'packet.wire-src': '从线路上到达的包需要源地址',
  'packet.families': '{src} 和 {dst} 的 IP 版本不同；一个包只能有一种',
  'packet.iface': "主机没有网卡 '{iface}'（它有 {interfaces}）",
};
