/**
 * Felix's mark bits with the default IptablesMarkMask 0xffff0000 (felix/config/config_params.go),
 * allocated in felix/dataplane/driver.go's order: accept, pass, drop, scratch0, scratch1.
 */
export const MARKS = {
  accept: 0x10000,
  pass: 0x20000,
  drop: 0x40000,
  scratch0: 0x80000,
  scratch1: 0x100000,
} as const;

/** allCalicoMarkBits (felix/rules/static.go): accept | pass | scratch0 | scratch1. */
export const ALL_CALICO_MARKS = MARKS.accept | MARKS.pass | MARKS.scratch0 | MARKS.scratch1;
