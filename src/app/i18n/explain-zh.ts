/**
 * Chinese text for every explanation key of src/engine/explain.ts (same keys, same {params}).
 * A test checks that no key is missing, so a new engine key fails CI until it is translated.
 */
export const EXPLAIN_ZH: Readonly<Record<string, string>> = {
  'send.probe': '{process} 发起一个到 {dst}:{dport} 的 {proto} 连接。',
  'send.reply': '{process} 作出应答；回包再次经过内核。',
  'send.reject-rst': 'REJECT --reject-with tcp-reset：内核向发送方回一个 TCP RST。',
  'send.rst-no-listener': '这个端口上没有 socket 监听，内核回一个 TCP RST。',
  'send.rst-no-connection': '这个报文不属于本机的任何连接，内核回一个 TCP RST。',
  'send.icmp-error': '内核向发送方回一个 ICMP 目标不可达（code {code}）。',
  'rx.wire': '数据包从 {iface} 进入。',
  'rx.loopback': '数据包从 lo 重新进入；它保留出去时获得的 conntrack 表项。',
  'hook.PREROUTING': '{table} PREROUTING：从网线进来的包经过的第一个钩子，在路由判定之前。',
  'hook.INPUT': '{table} INPUT：包是发给本机的，过了这个钩子就交给本地 socket。',
  'hook.FORWARD': '{table} FORWARD：包不是发给本机的，正在被本机转发。',
  'hook.OUTPUT': '{table} OUTPUT：本机进程发出的包。',
  'hook.POSTROUTING': '{table} POSTROUTING：包离开本机前的最后一个钩子。',
  'rule.miss': '{chain} 中有 {count} 条规则不匹配这个包。',
  'rule.nothing': '{chain} 的第 {rule} 条规则匹配，但没有目标；继续往下走。',
  'rule.accept': '{chain} 的第 {rule} 条规则 ACCEPT 这个包；这张表对它处理完毕。',
  'rule.drop': '{chain} 的第 {rule} 条规则静默丢弃（DROP）这个包；发送方收不到任何回应。',
  'rule.return': '第 {rule} 条规则从 {chain} 返回（RETURN）到跳转过来的链。',
  'rule.jump': '{chain} 的第 {rule} 条规则跳转到 {target}。',
  'rule.goto': '{chain} 的第 {rule} 条规则 goto 到 {target}（不再回到 {chain}）。',
  'rule.dnat':
    '{table} {chain} 中的 DNAT 把目标改写为 {dst}:{dport}；conntrack 记下这次改写，之后的包和回包都按它处理。',
  'rule.redirect': 'REDIRECT 把目标改写为本机 {dst}:{dport}。',
  'rule.snat': 'SNAT 把源地址改写为 {src}；回包回到这里时由 conntrack 还原。',
  'rule.masquerade': 'MASQUERADE 把源地址改写为出接口的地址 {src}，这样回包会经过本机返回。',
  'rule.nat-failed': 'NAT 目标找不到可用地址；包被丢弃。',
  'rule.mark': 'MARK 把包的 mark 设为 {mark}。',
  'rule.connmark': 'CONNMARK 设置连接的 mark（{mark}）。',
  'rule.reject': 'REJECT（{with}）：包被丢弃，并向发送方回一个错误，所以发送方看到的是拒绝。',
  'rule.log': 'LOG "{prefix}"：内核记录这个包，然后继续往下走。',
  'rule.trace': 'TRACE：从这里开始，内核报告这个包遇到的每一条规则。',
  'rule.notrack': 'NOTRACK：conntrack 忽略这个包，因此不会对它做任何 NAT。',
  'log.line': '内核日志：{prefix}',
  'nft.hook': '表 {table} 的基础链 {chain}（类型 {type}，优先级 {priority}）在 {hook} 看到这个包。',
  'nft.accept':
    '{chain} 的第 {rule} 条规则接受这个包：这条基础链不再处理它，但这个钩子上之后的基础链仍会看到它。',
  'nft.continue': '{chain} 的第 {rule} 条规则匹配，但没有裁决，继续下一条规则。',
  'nft.vmap': '{chain} 的第 {rule} 条规则在 {set} 中找到这个包；该元素的裁决是 {verdict}。',
  'nft.numgen':
    '{chain} 的第 {rule} 条规则抽取随机数：{count} 中的 {value}，于是包走向 {verdict}。',
  'ipvs.schedule':
    'IPVS（{hook}）：虚拟服务 {service} → 真实服务器 {server}。目标地址被改写（NAT 转发），包经路由、OUTPUT、POSTROUTING 发出。这是依据内核源码建模的结果，没有在真实内核上验证。',
  'ipvs.persist':
    'IPVS（{hook}）：{client} 在 {service} 上已有会话保持模板，所以仍然去同一个真实服务器 {server}。',
  'ipvs.connection': 'IPVS（{hook}）：这个包属于 IPVS 连接 {client} → {service} → {server}。',
  'ipvs.reply': 'IPVS（{hook}）：来自真实服务器 {server} 的回包，源地址被改回虚拟服务 {service}。',
  'ipvs.no-dest':
    'IPVS（{hook}）：虚拟服务 {service} 没有真实服务器，内核回 ICMP 端口不可达并丢弃这个包（ip_vs_leave）。',
  'ipvs.not-scheduled':
    'IPVS（{hook}）：{service} 只在 TCP SYN 上建立连接；这个报文段交给本机协议栈处理。',
  'ipvs.local':
    'IPVS（{hook}）：{service} 的真实服务器 {server} 就在本机；包改写目标地址后继续交给本地 socket。',
  'chain.return': '{chain} 走到末尾：回到调用它的链。',
  'chain.repeat':
    '{chain} 已经在这个钩子上用同一个包走过一遍，并且没有给出判决就返回了。内核会再走一遍，结果相同；这条轨迹里这样的重复已经很多，所以实验室用一步概括这一次，不再列出它的 {count} 次规则求值。',
  'limit.walk':
    '实验室在这里停下：{what}（在 {chain} 中）。内核会继续走下去；实验室无法展示这么长的遍历，因此不猜测结果。',
  'chain.policy.accept': '{table} {chain} 走到末尾：默认策略 ACCEPT。',
  'chain.policy.drop': '{table} {chain} 走到末尾：默认策略 DROP。',
  'nat.skip.established': 'nat 链只看连接的第一个包；之后由 conntrack 按记录做地址转换。',
  'nat.skip.untracked': '这个包没有被跟踪（untracked），所以不查 nat 表。',
  'nat.skip.invalid': 'conntrack 把这个包标为 INVALID，所以不查 nat 表。',
  'ct.new': 'conntrack：一个新连接的第一个包（#{id}）。',
  'ct.established': 'conntrack：连接 #{id} 的后续包。',
  'ct.reply': 'conntrack：连接 #{id} 的回包。',
  'ct.related': 'conntrack：关于一个已知连接的 ICMP 错误（RELATED）。',
  'ct.invalid': 'conntrack：这个包不能开启新连接，也不属于任何连接（INVALID）。',
  'ct.untracked': 'conntrack：不跟踪（raw 表中的 NOTRACK）。',
  'ct.keep': 'conntrack：这个包已经带着它的连接表项。',
  'ct.confirm': 'conntrack：连接 #{id} 被确认并写入连接表。',
  'ct.nat.dst': 'conntrack 按连接 #{id} 的记录改写目标地址。',
  'ct.nat.src': 'conntrack 按连接 #{id} 的记录改写源地址。',
  'route.local': '{dst} 是本机（{iface} 上）的地址，所以包进入 INPUT。',
  'route.loopback': '环回：出方向的路由已经判定为本机投递。',
  'route.forward': '{dst} 不是本机地址；从 {dev} 转发出去。',
  'route.bridged-dnat':
    'br_netfilter：DNAT 之后 {dst} 就在 {dev} 自己后面，帧回到网桥里转给它（桥接，不是路由）。',
  'route.output': '路由：从 {dev} 发出，源地址 {src}。',
  'route.output-local': '路由：{dst} 是本机地址，所以包走 lo。',
  'route.reroute': 'OUTPUT 改了目标地址，内核重新路由：从 {dev} 发出。',
  'route.reroute-loopback-source':
    'DNAT 之后包会以源地址 127.0.0.1 从 {dst} 发出，这需要 route_localnet；包被丢弃。',
  'route.no-forwarding': '{dst} 不是本机地址，而 ip_forward 关闭，所以包被丢弃。',
  'route.no-route': '没有到 {dst} 的路由。',
  'route.route-unreachable': '到 {dst} 的路由类型是 unreachable。',
  'route.route-prohibit': '到 {dst} 的路由类型是 prohibit。',
  'route.route-blackhole': '到 {dst} 的路由是黑洞（blackhole）；包被丢弃。',
  'route.martian-source': '火星源地址（martian source）{src}：被路由代码丢弃。',
  'route.martian-destination':
    '从 {dev} 进来的 127.0.0.0/8 在没有 route_localnet 时属于火星地址；丢弃。',
  'route.martian-source-loopback':
    '从 {dev} 进来的源地址 {src} 在没有 route_localnet 时属于火星地址；丢弃。',
  'route.martian-source-local': '源地址 {src} 是本机自己的地址，却从 {dev} 进来：火星地址，丢弃。',
  'route.rp-filter': '反向路径过滤（rp_filter）：发往 {src} 的回包不会从 {dev} 出去；丢弃。',
  'route.loopback-source': '源地址 127.0.0.1 在没有 route_localnet 时不能离开 lo。',
  'socket.delivered': '{process} 监听在 {bind}，收到这个包（它看到的源地址是 {src}）。',
  'socket.no-listener': '{dst}:{dport} 上没有 socket 监听。',
  'socket.no-listener-udp': '{dst}:{dport} 上没有 socket 监听；内核回 ICMP 端口不可达。',
  'socket.no-connection': '本机没有与这个包对应的连接。',
  'socket.answer': '应答到达发起连接的 socket："{payload}"。',
  'socket.rst': '发起连接的 socket 收到 RST：连接被拒绝。',
  'socket.icmp-error': '发起连接的 socket 收到 ICMP 不可达（code {code}）：连接失败。',
  'socket.echo': '内核回应了 ping。',
  'wire.send': '{from} 在 {segment} 上把帧发给 {to}（{iface}）。',
  'rx.bridge-up':
    '帧是发给 {iface} 自己的（Pod 的网关）：它作为从 {iface} 进来的包进入 IP 栈；PREROUTING 已经在网桥里跑过。',
  'bridge.local': '由 {bridge} 桥接：这个帧（从 {in} 进来）发往网桥自己的 MAC，交给主机的 IP 栈。',
  'bridge.forward': '由 {bridge} 桥接：目的 MAC 在端口 {out} 后面，帧在二层从 {in} 转到 {out}。',
  'bridge.hairpin-drop':
    '由 {bridge} 桥接：目的就在帧进来的端口 {in} 后面，而那里没有开启 hairpin 模式：网桥丢弃它。',
  'bridge.xmit': '主机从 {bridge} 发出；网桥把帧交给下一跳 MAC 所在的端口 {out}。',
  'bridge.nf-prerouting':
    'br_netfilter（bridge-nf-call-iptables=1）：从 {in} 进来的桥接帧经过 IPv4 PREROUTING 钩子，入设备是 {bridge}，physdev-in 是 {in}。',
  'bridge.nf-forward':
    'br_netfilter：桥接帧经过 IPv4 FORWARD 钩子，进出都是 {bridge}，physdev {in} -> {out}。',
  'bridge.nf-postrouting':
    'br_netfilter：桥接帧经过 IPv4 POSTROUTING 钩子，出设备 {bridge}（physdev-out {out}）；conntrack 在这里确认连接或撤销 NAT。',
  'bridge.nf-off':
    'bridge-nf-call-iptables=0：{bridge} 处理从 {in} 进来的帧，不经过 iptables，也不经过 conntrack。',
  'bridge.dnat-bridged':
    'br_netfilter：DNAT 之后的帧被桥接到 {out}，新的目的地址就在这个端口后面。',
  'wire.left': '包从 {iface} 发往 {nextHop}，离开了模拟的网络。',
  'wire.arp-failed': '在 {iface} 上没有人应答 {nextHop} 的 ARP。',
  drop: '丢弃：{reason}。',
  'drop.unreachable': '无法投递：{reason}。',
  'unsupported.match': '实验室无法求值 {what}（第 {line} 行）；结果只能是猜测，所以在这里停下。',
  'unsupported.target': '实验室无法求值 {what}（第 {line} 行）；结果只能是猜测，所以在这里停下。',
};
