// The client reference: every parcel a Furrow mirror sends carries its local id under this metadata key, and every
// later PATCH keeps it (PATCH replaces the whole metadata object). It is how an uncertain create is found on the
// service. It shows in the embedded map's tooltips, hence a plain, self-explaining name. In core because the
// mirror (which must leave room for it), the sync engine and the embedded map all need the same name.
export const REF_KEY = 'furrow_ref';
