/** The catalog's operations on accounts: who the caller is, and the users API of server administrators (docs/security.md). */
import { defineOperation, optBool, route, str } from './contract';
import { userSchema } from './result-schemas';
import { array, boolean, object, oneOf, string } from './schema-builders';
import { ORG_ROLES } from '../roles';

const email = str('e-mail address of the account');

export const ACCOUNT_OPERATIONS = [
  defineOperation({
    name: 'account_show',
    http: route('GET', '/me'),
    summary: 'Who the server takes the caller for: e-mail, scopes, memberships, admin flag ({kind: admin-key} alone for the admin key)',
    batch: false,
    readOnly: true,
    capability: null,
    tool: false,
    params: {},
    result: {
      oneOf: [
        object({
          kind: oneOf('user'),
          email: string,
          scopes: { ...array(string), description: 'user:<email> and org:<id> for each membership' },
          memberships: array(object({ orgId: string, role: oneOf(...ORG_ROLES) })),
          admin: boolean,
        }),
        object({ kind: oneOf('admin-key') }),
      ],
    },
  }),
  defineOperation({
    name: 'users_list',
    http: route('GET', '/users'),
    summary: 'Accounts of the server, or only the active or the pending ones',
    batch: false,
    readOnly: true,
    capability: 'server:manage-users',
    tool: false,
    params: { active: optBool('only active (true) or only pending (false) accounts') },
    result: array(userSchema),
  }),
  defineOperation({
    name: 'user_show',
    http: { ...route('GET', '/users/{email}'), errors: ['NOT_FOUND'] },
    summary: 'One account, as users_list lists it',
    batch: false,
    readOnly: true,
    capability: 'server:manage-users',
    tool: false,
    params: { email },
    result: userSchema,
  }),
  defineOperation({
    name: 'user_approve',
    http: { ...route('POST', '/users/{email}/approve'), errors: ['NOT_FOUND', 'CONFLICT'] },
    summary: 'Activate an account awaiting approval (USERS_NEED_APPROVAL)',
    batch: false,
    readOnly: false,
    capability: 'server:manage-users',
    tool: false,
    params: { email },
    result: userSchema,
  }),
  defineOperation({
    name: 'user_admin_grant',
    http: route('POST', '/users/{email}/admin'),
    summary: 'Make an account a server administrator, creating it active when the person has not signed in yet',
    batch: false,
    readOnly: false,
    capability: 'server:manage-users',
    tool: false,
    params: { email },
    result: userSchema,
  }),
  defineOperation({
    name: 'user_subject_reset',
    http: { ...route('POST', '/users/{email}/reset-subject'), errors: ['NOT_FOUND'] },
    summary: 'Unbind an account from its identity at the provider: the next sign-in with the address binds it again',
    batch: false,
    readOnly: false,
    capability: 'server:manage-users',
    tool: false,
    params: { email },
    result: userSchema,
  }),
] as const;
