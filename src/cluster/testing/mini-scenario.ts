/**
 * A small valid scenario for tests that break one thing at a time: one node with its own rules,
 * a laptop, a NodePort Service with two pods. Line numbers below are relied on by tests.
 */
export const MINI_SCENARIO = `title: { en: Mini, zh: 迷你 }
description: { en: One node and a client., zh: 一个节点和一个客户端。 }
cluster:
  lan: 192.168.50.0/24
  serviceCIDR: 10.96.0.0/12
  nodes:
    - name: cp-1
      ip: 192.168.50.38
      processes:
        - { name: sshd, listen: "0.0.0.0:22", reply: "SSH-2.0-OpenSSH_10.3" }
      rules: |
        *raw
        :PREROUTING ACCEPT [0:0]
        -A PREROUTING -p tcp --dport 22 -j ACCEPT
        COMMIT
    - name: worker-1
      ip: 192.168.50.39
  clients:
    - { name: laptop, ip: 192.168.50.10 }
manifests: |
  apiVersion: v1
  kind: Service
  metadata: { name: web }
  spec:
    type: NodePort
    selector: { app: web }
    ports: [{ port: 80, targetPort: 8080 }]
  ---
  apiVersion: apps/v1
  kind: Deployment
  metadata: { name: web }
  spec:
    replicas: 2
    selector: { matchLabels: { app: web } }
    template:
      metadata: { labels: { app: web } }
      spec:
        containers: [{ name: web, image: nginx, ports: [{ containerPort: 8080 }] }]
probes:
  - name: sshd on the node
    from: client/laptop
    to: node/cp-1:22
    expect: { answeredBy: node/cp-1/sshd }
  - name: the NodePort
    from: client/laptop
    to: nodeport/web@cp-1
    expect: { outcome: answered }
`;

/** The scenario with `from` replaced by `to` (once; it throws when `from` is not there). */
export function miniWith(from: string, to: string): string {
  if (!MINI_SCENARIO.includes(from)) throw new Error(`the mini scenario has no '${from}'`);
  return MINI_SCENARIO.replace(from, to);
}
