/**
 * The principal of a request as the outbox records it (src/model/events.ts, `EventActor`): its
 * kind and the token's subject, nothing else of the token. The model never sees a principal.
 */
import type { Principal } from '../auth';
import type { EventActor } from '../model';

export function actorOf(principal: Principal): EventActor {
  // The access rules (src/schema/access.ts) let no anonymous caller reach a mutation.
  if (principal.kind === 'anonymous') throw new Error('an anonymous caller cannot cause an event');
  return { kind: principal.kind, subject: principal.subject };
}
