/**
 * The budget for the composition root: the shared BudgetGate (Lua on Redis), the in-process
 * LocalBudget that stands in while Redis is away, and the port the pipeline's budget layer uses,
 * which picks between them by Redis health.
 */
import type { BrokerContext } from "../broker-context.js";
import type { BudgetPort } from "../pipeline/ports.js";
import type { BrokerRedis } from "../redis/start-redis.js";
import { BudgetGate } from "./budget-gate.js";
import { budgetPolicyFromConfig, budgetPort } from "./budget-port.js";
import { LocalBudget } from "./local-budget.js";

export interface BrokerBudget {
  readonly gate: BudgetGate;
  readonly local: LocalBudget;
  readonly port: BudgetPort;
}

export async function startBudget(context: BrokerContext, r: BrokerRedis): Promise<BrokerBudget> {
  const { config, logger } = context;
  const gate = new BudgetGate({
    redis: r.location.url,
    prefix: r.prefix,
    logger: logger.child({ component: "budget" }),
    policy: budgetPolicyFromConfig(config.budget),
  });
  await gate.start();
  context.shutdown.add("budget gate", () => gate.close(), r.stepTimeout());
  const local = new LocalBudget({
    paceFraction: config.budget.local.paceFraction,
    burst: config.budget.local.burst,
  });
  return { gate, local, port: budgetPort({ gate, logger, health: r.health, local }) };
}
