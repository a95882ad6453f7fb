/** English text of the "Replay a real trace" panel (merged into UI_EN). */
export const REPLAY_EN = {
  'replay.open': 'Replay a real trace',
  'replay.close': 'Back to the simulated trace',
  'replay.title': 'Real trace beside the simulation',
  'replay.input': 'Output of xtables-monitor --trace, nft monitor trace, Retis or pwru',
  'replay.placeholder':
    'Paste (or drop a file with) what `xtables-monitor --trace`, `nft monitor trace`, Retis (`retis collect -o`, JSON) or pwru printed on a node while the packet passed.',
  'replay.clear': 'Clear',
  'replay.packet': 'Traced packet',
  'replay.packetOption': '{summary} (trace id {id}, {steps} steps, line {line})',
  'replay.packetOptionStages': '{summary} ({id}, {steps} stages, line {line})',
  'replay.format.xtables': 'xtables-monitor --trace',
  'replay.format.nft': 'nft monitor trace',
  'replay.format.retis': 'Retis events',
  'replay.format.pwru': 'pwru',
  'replay.readStages_one': 'Read as {format}: {count} packet seen in kernel functions.',
  'replay.readStages_other': 'Read as {format}: {count} packets seen in kernel functions.',
  'replay.coarse':
    'pwru reports the kernel functions a packet passed, not rules: the lab compares which hooks it passed, where it was delivered, sent or dropped, and cannot say which rule ran.',
  'replay.coarseRetis':
    'These Retis events have no nft section (collect with -c nft to compare rules): the lab compares the hooks and probes the packet passed, not its rules.',
  'replay.onlyVerdicts':
    'Retis collected only the {verdicts} verdicts (its default): the lab’s other steps are shown but not compared. Collect with --nft-verdicts all to compare every rule.',
  'replay.dropped': 'The kernel dropped this packet (reason {reason}, line {line}).',
  'replay.droppedNoReason': 'The kernel dropped this packet (line {line}).',
  'replay.stages.agrees':
    'The real packet passed the same stages as the lab: {same} alike on {host}, packet {packet} of the exchange. Rules are not compared.',
  'replay.stages.first.extra':
    'First disagreement, row {row}: the kernel passed {stage} ({funcs}); the lab did not.',
  'replay.stages.first.drop':
    'First disagreement, row {row}: the kernel dropped the packet here ({reason}); the lab did not.',
  'replay.stages.first.missing':
    'First disagreement, row {row}: the lab passed {stage}; the kernel was not seen there.',
  'replay.stages.rows': 'The stages of the real packet and of the simulated one, aligned',
  'replay.stages.tables': 'a table ran',
  'replay.stage.PREROUTING': 'PREROUTING hook',
  'replay.stage.INPUT': 'INPUT hook',
  'replay.stage.FORWARD': 'FORWARD hook',
  'replay.stage.OUTPUT': 'OUTPUT hook',
  'replay.stage.POSTROUTING': 'POSTROUTING hook',
  'replay.stage.receive': 'received',
  'replay.stage.bridge': 'bridge',
  'replay.stage.socket': 'socket',
  'replay.stage.xmit': 'sent out',
  'replay.stage.drop': 'dropped',
  'replay.stageStatus.same': 'same',
  'replay.stageStatus.missing': 'kernel: not seen',
  'replay.stageStatus.extra': 'lab: nothing',
  'replay.stageStatus.unseen': 'not probed',
  'replay.read_one': 'Read as {format}: {count} packet ran a rule.',
  'replay.read_other': 'Read as {format}: {count} packets ran a rule.',
  'replay.skipped_one': '{count} line was not trace output and was skipped.',
  'replay.skipped_other': '{count} lines were not trace output and were skipped.',
  'replay.error': 'Line {line}, column {column}: {message}',
  'replay.failed': 'The trace could not be compared: {message}',
  'replay.noPackets': 'No packet in this text ran a rule: paste the lines of the packet itself.',
  'replay.agrees':
    'The real trace agrees with the lab: {same} steps alike on {host}, packet {packet} of the exchange.',
  'replay.first.verdict':
    'First disagreement, row {row}: in {where} the kernel’s rule gave “{real}”, the lab’s “{sim}”.',
  'replay.first.rule':
    'First disagreement, row {row}: in {where} the kernel ran the rule with handle {real}, the lab the one with handle {sim}.',
  'replay.first.missing':
    'First disagreement, row {row}: the lab ran {where} ({sim}); the kernel reported nothing there.',
  'replay.first.extra':
    'First disagreement, row {row}: the kernel ran {where} ({real}); the lab did not.',
  'replay.count_one': '{count} disagreement in all.',
  'replay.count_other': '{count} disagreements in all.',
  'replay.show': 'Show that row',
  'replay.rows': 'The real trace and the simulated one, aligned',
  'replay.col.n': '#',
  'replay.col.real': 'Kernel (pasted trace)',
  'replay.col.sim': 'Lab (simulation, {host})',
  'replay.col.status': 'Compared',
  'replay.goto': 'Show step {n} in the lab',
  'replay.status.same': 'same',
  'replay.status.verdict': 'other verdict',
  'replay.status.rule': 'other rule',
  'replay.status.missing': 'kernel: nothing',
  'replay.status.extra': 'lab: nothing',
  'replay.status.tracing': 'tracing rule',
  'replay.status.optional': 'not traced by the kernel',
} as const;
