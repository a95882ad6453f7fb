/**
 * IPVS (the kernel's IP Virtual Server) for the engine: a host's virtual services and real
 * servers (HostSpec.ipvs), the hook functions the stack calls where the kernel registers them,
 * and the ipvsadm views. Modelled from the kernel sources (net/netfilter/ipvs), not checked on a
 * kernel.
 */
export type {
  IpvsSpec,
  IpvsServiceSpec,
  IpvsRealServerSpec,
  IpvsProto,
  IpvsForward,
} from './spec.ts';
export { compileIpvs, newIpvsState, cloneIpvsState, serviceText } from './table.ts';
export type { IpvsTable, IpvsState, IpvsConn, VirtualService, RealServer } from './table.ts';
export { ipvsLocalIn, ipvsLocalOut, ipvsForward } from './hooks.ts';
export type { IpvsXmit } from './hooks.ts';
export { ipvsadmList, ipvsadmSave } from './ipvsadm.ts';
