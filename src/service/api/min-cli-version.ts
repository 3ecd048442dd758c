// The lowest `svc` version this API accepts (strict X.Y.Z, no `v`). Raise it only in the API build that removes endpoints or changes what older CLIs cannot handle; never per deployment.
export const MIN_CLI_VERSION = '1.0.0';
