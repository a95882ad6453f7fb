/** “重放真实跟踪”面板的中文（并入 UI_ZH）。 */
import type { REPLAY_EN } from './replay-en.ts';

export const REPLAY_ZH: Record<keyof typeof REPLAY_EN, string> = {
  'replay.open': '重放真实跟踪',
  'replay.close': '回到模拟跟踪',
  'replay.title': '真实跟踪与模拟并排',
  'replay.input': 'xtables-monitor --trace 或 nft monitor trace 的输出',
  'replay.placeholder':
    '粘贴（或拖入文件）数据包经过时在节点上运行 `xtables-monitor --trace` 或 `nft monitor trace` 得到的行。',
  'replay.clear': '清空',
  'replay.packet': '被跟踪的数据包',
  'replay.packetOption': '{summary}（trace id {id}，{steps} 步，第 {line} 行）',
  'replay.format.xtables': 'xtables-monitor --trace',
  'replay.format.nft': 'nft monitor trace',
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
