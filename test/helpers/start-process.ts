// The process starter is shared with `release rehearse`, which starts the deployment the same way.
export * from '../../src/processes/start-process.ts';
