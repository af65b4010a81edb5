import type { Database } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';

// Shared botanical families every organization can pick from; organizations add their own on top.
const FAMILIES: ReadonlyArray<[string, string]> = [
  ['Poaceae', 'Cereals and grasses: wheat, barley, maize, rice, oats'],
  ['Fabaceae', 'Legumes: soybean, pea, bean, lentil, alfalfa; fix nitrogen'],
  ['Brassicaceae', 'Crucifers: rapeseed, cabbage, mustard'],
  ['Solanaceae', 'Nightshades: potato, tomato, pepper'],
  ['Asteraceae', 'Sunflower, lettuce, artichoke'],
  ['Amaranthaceae', 'Sugar beet, spinach, quinoa'],
  ['Cucurbitaceae', 'Melon, watermelon, squash, cucumber'],
  ['Rosaceae', 'Pome and stone fruit: apple, pear, peach, almond, cherry'],
  ['Vitaceae', 'Grapevine'],
  ['Oleaceae', 'Olive'],
  ['Rutaceae', 'Citrus'],
  ['Apiaceae', 'Carrot, celery, parsley'],
  ['Amaryllidaceae', 'Onion, garlic, leek'],
  ['Juglandaceae', 'Walnut, pecan'],
];

export function up(db: Database): void {
  const ins = db.prepare('INSERT INTO crop_families (key, organization_id, name, name_norm, observation, created) VALUES (?, NULL, ?, ?, ?, ?)');
  const t = new Date().toISOString();
  for (const [name, observation] of FAMILIES) ins.run(randomUUID(), name, name.toLowerCase(), observation, t);
}
