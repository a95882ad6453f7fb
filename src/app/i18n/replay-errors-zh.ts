/**
 * Chinese text for every trace-reader error key of src/engine/replay-errors.ts (same keys, same
 * {params}). A test checks that none is missing. Tool syntax (commands, field names, the shapes of
 * lines) stays as the tools print it.
 */
import type { ReplayErrorKey } from '../../engine/replay-errors.ts';

export const REPLAY_ERRORS_ZH: Readonly<Record<ReplayErrorKey, string>> = {
  'too-long': '这段跟踪有 {chars} 个字符；最多粘贴 {max} 个（一个数据包的几行就够了）',
  'no-trace':
    '没有找到跟踪行：请粘贴 `xtables-monitor --trace` 的输出（以 PACKET: / TRACE: 开头的行）、`nft monitor trace` 的输出（以 "trace id" 开头的行）、Retis 的输出（`retis collect -o` 写出的 JSON 行）或 pwru 的输出（以 skb 地址 0xffff... 开头的行）',
  'nft.head':
    '应为 "trace id ID FAMILY TABLE CHAIN packet:|rule|policy|verdict ..."（十六进制 id，然后是协议族、表和链）',
  'nft.rule-verdict': '规则行应以 "(verdict ...)" 结尾',
  'nft.names-verdict': '{kind} 行要写出它的判决："{kind} accept"',
  'xtables.head': '{keyword}: 后面应是协议族编号和十六进制跟踪 id（"{keyword}: 2 4a102771 ..."）',
  'xtables.event':
    '应为 table:chain:rule:HANDLE:VERDICT、table:chain:return: 或 table:chain:policy:VERDICT',
  'xtables.rule': '规则事件需要 handle 和判决：rule:0x1f:ACCEPT',
  'retis.nft-text':
    'nft 行的格式是 "table T (handle) chain C (handle) [handle N] VERDICT [(policy)] [chain TARGET]"',
  'retis.nft-field': 'nft 部分缺少 {field}',
  'retis.json': '不是 JSON 事件：请原样粘贴 `retis collect -o FILE` 写出的文件（每行一个事件）',
  'pwru.func': '元组之后（旧版 pwru 输出中是进程之后）应是内核函数名',
  'pwru.json': '不是 JSON 行：请原样粘贴 `pwru --output-json` 打印的内容（每行一个对象）',
};
