/**
 * Before a scenario is measured, every server that runs it (hedged ones included) answers its first
 * bodies, compared with the data set's answer where it tells one, else with the single table's.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ChildHandle } from './ipc';
import { post } from './measure';
import type { DesignName } from './results';
import type { Scenario } from './scenarios';

/** One server a scenario measures: a design, hedged or not. */
export interface Target {
  key: string;
  design: DesignName;
  hedged: boolean;
  /** The status scenario's servers with both status indexes unsharded. */
  unsharded?: boolean;
  url: string;
  headers: Record<string, string>;
  server: ChildHandle;
}

export async function verify(scenario: Scenario, targets: readonly Target[]): Promise<{ verified: boolean; problems: string[] }> {
  const problems: string[] = [];
  const samples = Math.min(5, scenario.bodies.length);
  for (let i = 0; i < samples; i++) {
    const answers = new Map<string, unknown>();
    for (const target of targets) {
      const answer = await post(target.url, scenario.bodies[i] as string, target.headers);
      const parsed = JSON.parse(answer.text) as { data?: unknown; errors?: unknown };
      if (parsed.errors) problems.push(`${target.key} errors: ${JSON.stringify(parsed.errors).slice(0, 300)}`);
      answers.set(target.key, parsed.data);
    }
    const reference = scenario.expected ? scenario.expected(i) : answers.get('singleTable');
    for (const [design, data] of answers) {
      if (!isDeepStrictEqual(data, reference))
        problems.push(
          `${design} answer #${i} differs from ${scenario.expected ? 'the loaded data' : 'the single table\u2019s'}: ${JSON.stringify(data).slice(0, 200)}`,
        );
    }
  }
  return { verified: problems.length === 0, problems };
}
