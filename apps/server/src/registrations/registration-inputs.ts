/** POST /auth/device, as ROUTE_INPUTS.registration_request checked it (the name by deviceNameProblem, here). */
export interface RequestRegistrationInput {
  device_info: { hostname: string; platform: string; architecture: string; os_version: string };
  owner_scope: string;
  device_id: string;
  public_key: string;
  name?: string;
}

/** POST /devices/registrations/reject, as ROUTE_INPUTS.registrations_reject checked it. */
export interface RejectRegistrationsInput {
  owner_scope?: string;
  source_address?: string;
  device_id?: string;
}
