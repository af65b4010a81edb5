// What the map's keys say of the parcel they selected, for screen readers: in the app's one live region of the
// selection (features/focus/announce.ts), so a parcel chosen with ] is said once, with its place among those in view.
import { announce } from '../focus/announce.ts';

export const sayOnMap = (said: string) => announce(said);
