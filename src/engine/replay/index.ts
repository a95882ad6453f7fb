/** Replaying a real trace beside the engine's: parsers and alignment. */
export type {
  ParsedTrace,
  RealHop,
  RealPacket,
  RealStage,
  RealStep,
  Stage,
  TraceFormat,
} from './types.ts';
export { parseRealTrace, MAX_TRACE_CHARS } from './parse.ts';
export { parseXtablesTrace } from './xtables.ts';
export { parseNftTrace } from './nft.ts';
export { parseRetisTrace } from './retis.ts';
export { parsePwruTrace } from './pwru.ts';
export { probedStages } from './stages.ts';
export {
  alignStages,
  isStageDisagreement,
  replayStages,
  simStages,
  type SimStage,
  type StageAlignment,
  type StageRow,
  type StageStatus,
} from './align-stages.ts';
export { simSteps, type SimStep } from './sim-steps.ts';
export {
  alignSteps,
  isDisagreement,
  replayPacket,
  type AlignedRow,
  type Alignment,
  type ReplayOptions,
  type RowStatus,
} from './align.ts';
