/** What the handlers share for the lifetime of one server: its behaviour, tokens and data. */
import type { ReferenceBehaviour } from './behaviour.js';
import type { ReferenceUser, TenantRecord } from './data.js';
import type { TokenStore } from './tokens.js';

export interface ReferenceContext {
  readonly behaviour: ReferenceBehaviour;
  readonly tokens: TokenStore;
  readonly tenants: ReadonlyMap<string, TenantRecord>;
  readonly user: ReferenceUser;
  /** The second client's user (its own tenant only); absent: /users/me serves `user` to every client. */
  readonly secondUser?: ReferenceUser;
  /** State an alteration keeps for the lifetime of one server, by alteration name. */
  readonly scratch: Map<string, unknown>;
}
