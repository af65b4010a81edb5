// GET /api/organization/: who a credential speaks for. Not in the spec (our extension, docs/api.md): a client holding
// an organization's key learns its name — what a consultant's app shows beside the service's address, since two
// organizations on one service would otherwise read the same — and its id, which tells a client whether the service
// at an address still answers for the organization it connected to.
import { Type, type Static } from '@sinclair/typebox';

export const OrganizationInfo = Type.Object({
  id: Type.String({ description: "The organization's id on this service" }),
  name: Type.String(),
});
export type OrganizationInfo = Static<typeof OrganizationInfo>;
