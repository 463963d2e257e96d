export { LIFECYCLE_SESSION_ID, lifecycleEventChannel } from "./lifecycle-ports.js";
export { type BrokerLifecycle, createBrokerLifecycle } from "./lifecycle-start.js";
