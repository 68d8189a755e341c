/**
 * Domain errors shared by server, CLI and runtime. The server's exception filter maps them to
 * `{statusCode, error, message, code, requestId}`; the CLI maps them to a message and exit code.
 */
export type ErrorCode =
  | 'INVALID_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'ACCOUNT_PENDING_APPROVAL'
  | 'ACCOUNT_SUBJECT_MISMATCH'
  | 'NOT_FOUND'
  | 'DEVICE_NOT_FOUND'
  | 'NO_ACTIVE_DEPLOYMENT'
  | 'CONFLICT'
  | 'GONE'
  | 'REQUEST_TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'DEVICE_OFFLINE'
  | 'SERVER_UNREACHABLE'
  | 'BAD_GATEWAY'
  | 'CONNECTION_REFUSED'
  | 'TIMEOUT'
  | 'STORAGE_UNAVAILABLE'
  | 'INSUFFICIENT_STORAGE'
  | 'INTERNAL';

export const HTTP_STATUS_BY_CODE: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  ACCOUNT_PENDING_APPROVAL: 403,
  ACCOUNT_SUBJECT_MISMATCH: 403,
  NOT_FOUND: 404,
  DEVICE_NOT_FOUND: 404,
  NO_ACTIVE_DEPLOYMENT: 404,
  CONFLICT: 409,
  GONE: 410,
  // A request body that did not arrive in time (REST_BODY_TIMEOUT_MS); the connection is closed with it.
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  DEVICE_OFFLINE: 503,
  // Said by the clients, never by the server: svc itself could not be reached (error-answer.ts).
  SERVER_UNREACHABLE: 503,
  BAD_GATEWAY: 502,
  CONNECTION_REFUSED: 502,
  TIMEOUT: 504,
  STORAGE_UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
  INTERNAL: 500,
};

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  get status(): number {
    return HTTP_STATUS_BY_CODE[this.code];
  }
}

export class InvalidInputError extends DomainError {
  constructor(message: string) {
    super('INVALID_INPUT', message);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message = 'Authentication required') {
    super('UNAUTHENTICATED', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'Access denied') {
    super('FORBIDDEN', message);
  }
}

export class AccountPendingApprovalError extends DomainError {
  constructor() {
    super('ACCOUNT_PENDING_APPROVAL', 'Your account awaits approval by an administrator');
  }
}

/**
 * The account is bound to another identity (`sub`) at the issuer than the token's: the same
 * e-mail address does not make someone the same user. An administrator can reset the binding.
 */
export class AccountSubjectMismatchError extends DomainError {
  constructor() {
    super(
      'ACCOUNT_SUBJECT_MISMATCH',
      'This account is bound to another identity at the identity provider (a different "sub" with the same e-mail address); ask an administrator to reset the binding if the account moved',
    );
  }
}

export class NotFoundError extends DomainError {
  constructor(message = 'Not found') {
    super('NOT_FOUND', message);
  }
}

/** The one answer for a device that does not exist and for one the caller may not see. */
export class DeviceNotFoundError extends DomainError {
  constructor() {
    super('DEVICE_NOT_FOUND', 'Device not found');
  }
}

/** The device exists and is visible, but none of its deployments is active (the operation defaults to the active one). */
export class NoActiveDeploymentError extends DomainError {
  constructor() {
    super('NO_ACTIVE_DEPLOYMENT', 'No active deployment');
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

export class GoneError extends DomainError {
  constructor(message: string) {
    super('GONE', message);
  }
}

export class RateLimitedError extends DomainError {
  constructor(message = 'Too many requests, try again later') {
    super('RATE_LIMITED', message);
  }
}

export class DeviceOfflineError extends DomainError {
  constructor() {
    super('DEVICE_OFFLINE', 'Device is offline');
  }
}

/** The device went away under a transfer already under way (its runtime killed, its tunnel lost): told apart from a device that was offline from the start. */
export class DeviceLostError extends DomainError {
  constructor(device: string, during: string) {
    super('DEVICE_OFFLINE', `Connection to device ${device} lost during ${during}`);
  }
}

/** A forward's target on the device's side refused or could not be reached (nothing listens there). */
export class ConnectionRefusedError extends DomainError {
  constructor(message: string) {
    super('CONNECTION_REFUSED', message);
  }
}

export class TimeoutError extends DomainError {
  constructor(message = 'Timed out') {
    super('TIMEOUT', message);
  }
}

export class StorageUnavailableError extends DomainError {
  constructor(message = 'Storage is unavailable') {
    super('STORAGE_UNAVAILABLE', message);
  }
}

/** A file could not be written: the disk (or the quota) of the machine holding it is full. */
export class InsufficientStorageError extends DomainError {
  constructor(message = 'No space left on device') {
    super('INSUFFICIENT_STORAGE', message);
  }
}

/** Wire shape of every error answer of the REST API. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  code: ErrorCode;
  requestId: string;
}
