declare module 'virtual:deploy-request-validator' {
  import type { DeployRequestValidator } from '@svc/common/runspec';
  const validate: DeployRequestValidator;
  export default validate;
}
