// Dev-server only (`ng serve`): the built console is served by the API on the
// same origin, so only local development needs a proxy to reach /graphql.
// The API's address comes from the environment because its port is the API's
// configuration, not the console's.
const target = process.env.LUNANEXA_API_ORIGIN;
if (!target) {
  throw new Error('Set LUNANEXA_API_ORIGIN (e.g. the URL the local API listens on) before running ng serve.');
}

export default {
  // `ws`: live updates are graphql-ws subscriptions on the same path.
  '/graphql': { target, secure: true, ws: true },
  // Evidence bundles are downloaded over REST from the API.
  '/v1/evidence': { target, secure: true },
};
