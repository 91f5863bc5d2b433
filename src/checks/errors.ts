// Errors a run raises of its own making. Each class has a stable code, so callers branch on the
// class (or the code, across a process boundary), never on the wording of a message.

export class RunError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The run's deadline passed, or the agent stopped it. */
export class RunTimeoutError extends RunError {
  constructor() {
    super('OUTPOST_RUN_TIMEOUT', 'timed out');
  }
}

/** The private location's proxy would not open a tunnel to the target. */
export class ProxyTunnelError extends RunError {
  constructor(
    readonly authority: string,
    readonly status: number,
  ) {
    super('OUTPOST_PROXY_REFUSED', `the proxy refused the tunnel to ${authority} (status ${status || 'unreadable'})`);
  }
}

/** The target's certificate failed verification (and the check does not skip it). */
export class CertificateRejectedError extends RunError {
  constructor(reason: string) {
    super('OUTPOST_CERT_REJECTED', `TLS certificate rejected: ${reason}`);
  }
}

/** The agent blocks private targets, and the check (or a redirect) led to one. */
export class TargetRefusedError extends RunError {
  constructor(host: string, address: string) {
    super(
      'OUTPOST_TARGET_REFUSED',
      `refused to connect to ${host === address ? address : `${host} (${address})`}: a loopback, link-local or private address, and this agent blocks those (OUTPOST_BLOCK_PRIVATE_TARGETS)`,
    );
  }
}
