/** “重放真实跟踪”面板的中文（并入 UI_ZH）。 */
import type { REPLAY_EN } from './replay-en.ts';

export const REPLAY_ZH: Record<keyof typeof REPLAY_EN, string> = {
  'replay.open': '重放真实跟踪',
  'replay.close': '回到模拟跟踪',
  'replay.title': '真实跟踪与模拟并排',
  'replay.input': 'xtables-monitor --trace、nft monitor trace、Retis 或 pwru 的输出',
  'replay.placeholder':
    '粘贴（或拖入文件）数据包经过时在节点上由 `xtables-monitor --trace`、`nft monitor trace`、Retis（`retis collect -o`，JSON）或 pwru 打印的内容。',
  'replay.clear': '清空',
  'replay.packet': '被跟踪的数据包',
  'replay.packetOption': '{summary}（trace id {id}，{steps} 步，第 {line} 行）',
  'replay.packetOptionStages': '{summary}（{id}，{steps} 个阶段，第 {line} 行）',
  'replay.format.xtables': 'xtables-monitor --trace',
  'replay.format.nft': 'nft monitor trace',
  'replay.format.retis': 'Retis 事件',
  'replay.format.pwru': 'pwru',
  'replay.readStages_one': '按 {format} 读取：{count} 个数据包出现在内核函数中。',
  'replay.readStages_other': '按 {format} 读取：{count} 个数据包出现在内核函数中。',
  'replay.coarse':
    'pwru 报告的是数据包经过的内核函数，而不是规则：实验比较它经过了哪些钩子、在哪里被交付、发出或丢弃，无法说出执行了哪条规则。',
  'replay.coarseRetis':
    '这些 Retis 事件没有 nft 部分（用 -c nft 采集才能比较规则）：实验比较数据包经过的钩子和探针，而不是规则。',
  'replay.onlyVerdicts':
    'Retis 只采集了 {verdicts} 判决（默认设置）：实验的其他步骤会显示但不比较。用 --nft-verdicts all 采集即可比较每条规则。',
  'replay.dropped': '内核丢弃了这个数据包（原因 {reason}，第 {line} 行）。',
  'replay.droppedNoReason': '内核丢弃了这个数据包（第 {line} 行）。',
  'replay.stages.agrees':
    '真实数据包经过的阶段与实验一致：在 {host} 上 {same} 个阶段相同（本次交互的第 {packet} 个数据包）。规则未比较。',
  'replay.stages.first.extra':
    '第一处不一致，第 {row} 行：内核经过了 {stage}（{funcs}），实验没有。',
  'replay.stages.first.drop':
    '第一处不一致，第 {row} 行：内核在这里丢弃了数据包（{reason}），实验没有。',
  'replay.stages.first.missing':
    '第一处不一致，第 {row} 行：实验经过了 {stage}，内核在那里没有出现。',
  'replay.stages.rows': '对齐后的真实数据包与模拟数据包的各个阶段',
  'replay.stages.tables': '有表执行',
  'replay.stage.PREROUTING': 'PREROUTING 钩子',
  'replay.stage.INPUT': 'INPUT 钩子',
  'replay.stage.FORWARD': 'FORWARD 钩子',
  'replay.stage.OUTPUT': 'OUTPUT 钩子',
  'replay.stage.POSTROUTING': 'POSTROUTING 钩子',
  'replay.stage.receive': '收到',
  'replay.stage.bridge': '网桥',
  'replay.stage.socket': '套接字',
  'replay.stage.xmit': '发出',
  'replay.stage.drop': '丢弃',
  'replay.stageStatus.same': '相同',
  'replay.stageStatus.missing': '内核：未出现',
  'replay.stageStatus.extra': '实验：无',
  'replay.stageStatus.unseen': '未探测',
  'replay.read_one': '按 {format} 读取：{count} 个数据包命中了规则。',
  'replay.read_other': '按 {format} 读取：{count} 个数据包命中了规则。',
  'replay.skipped_one': '{count} 行不是跟踪输出，已跳过。',
  'replay.skipped_other': '{count} 行不是跟踪输出，已跳过。',
  'replay.error': '第 {line} 行第 {column} 列：{message}',
  'replay.failed': '无法比较这段跟踪：{message}',
  'replay.noPackets': '这段文字里没有数据包命中规则：请粘贴该数据包本身的那些行。',
  'replay.agrees':
    '真实跟踪与实验一致：在 {host} 上 {same} 步相同（本次交互的第 {packet} 个数据包）。',
  'replay.first.verdict':
    '第一处不一致，第 {row} 行：在 {where}，内核的规则给出“{real}”，实验给出“{sim}”。',
  'replay.first.rule':
    '第一处不一致，第 {row} 行：在 {where}，内核执行的是 handle {real} 的规则，实验执行的是 handle {sim}。',
  'replay.first.missing':
    '第一处不一致，第 {row} 行：实验执行了 {where}（{sim}），内核在这里什么也没报告。',
  'replay.first.extra': '第一处不一致，第 {row} 行：内核执行了 {where}（{real}），实验没有。',
  'replay.count_one': '共 {count} 处不一致。',
  'replay.count_other': '共 {count} 处不一致。',
  'replay.show': '显示这一行',
  'replay.rows': '对齐后的真实跟踪与模拟跟踪',
  'replay.col.n': '#',
  'replay.col.real': '内核（粘贴的跟踪）',
  'replay.col.sim': '实验（模拟，{host}）',
  'replay.col.status': '比较',
  'replay.goto': '在实验中显示第 {n} 步',
  'replay.status.same': '相同',
  'replay.status.verdict': '判决不同',
  'replay.status.rule': '规则不同',
  'replay.status.missing': '内核：无',
  'replay.status.extra': '实验：无',
  'replay.status.tracing': '跟踪规则',
  'replay.status.optional': '内核不跟踪',
};
