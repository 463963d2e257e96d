/**
 * The simulator for bench:gateway, in its own process, with GitHub's limits lifted: that benchmark
 * measures serving speed, and 1,000 req/s straight at one endpoint would (rightly) trip GitHub's
 * secondary limit of 900 points a minute. Prints its URL and serves until killed.
 */
import { startSimulator } from "../github-sim/index.js";

const huge = 1_000_000_000;
const sim = await startSimulator({
  port: 0,
  limits: { core: huge, graphql: huge, search: huge },
  secondary: {
    concurrent: huge,
    restPointsPerMinute: huge,
    graphqlPointsPerMinute: huge,
    contentCreationPerMinute: huge,
    contentCreationPerHour: huge,
  },
});
process.stdout.write(`github-sim listening on ${sim.url}\n`);
const stop = () => void sim.close().then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
