// The farm's rotation rule set, edited: the diversification rule (Regulation (EU) No 1307/2013 Art. 44, the user's
// own thresholds, or none), the monoculture limits, each family's return period, the crops on permanent land. Kept
// per farm in the mirror (setRotationRules); the table checks the plan against it as soon as it is saved.
import { useState, type FormEvent } from 'react';
import type { FarmRules } from '../../../core/api.ts';
import { defaultRuleSet, ruleSetProblem, type RuleSet } from '../../../core/crops/rule-set.ts';
import { useApi } from '../../context.ts';
import { say } from '../../store.ts';

const pctText = (x: number | null) => (x === null ? '' : String(Math.round(x * 1000) / 10));
const num = (s: string) => (s.trim() === '' ? NaN : Number(s.replace(',', '.')));

interface Draft { rules: RuleSet; permanent: string; periods: { family: string; years: string }[]; main: string; two: string; exempt: string; minCrops: string; sameCrop: string; sameFamily: string }

const draftOf = (r: RuleSet): Draft => ({
  rules: r, permanent: r.permanentCrops.join(', '), periods: r.returnPeriods.map((p) => ({ family: p.family, years: String(p.years) })),
  main: pctText(r.custom.mainMax), two: pctText(r.custom.twoMainMax), exempt: String(r.custom.exemptBelowHa), minCrops: String(r.custom.minCrops),
  sameCrop: String(r.maxSameCrop), sameFamily: String(r.maxSameFamily),
});

/** The draft as a rule set, or what is wrong with it in words. */
function read(d: Draft): { rules: RuleSet } | { problem: string } {
  const whole = (s: string, what: string, max = 20) => {
    const n = num(s);
    return Number.isInteger(n) && n >= 0 && n <= max ? n : `${what} is a whole number from 0 to ${max}`;
  };
  const share = (s: string, what: string) => {
    const n = num(s);
    return Number.isFinite(n) && n >= 0 && n <= 100 ? n / 100 : `${what} is a percentage from 0 to 100`;
  };
  const periods = d.periods.filter((p) => p.family.trim() || p.years.trim()).map((p) => ({ family: p.family.trim(), years: whole(p.years, `${p.family.trim() || 'A family'}'s return period`) }));
  const exempt = num(d.exempt);
  const fields = [whole(d.sameCrop, 'The same crop limit'), whole(d.sameFamily, 'The same family limit'), whole(d.minCrops, 'The least number of crops'), share(d.main, "The main crop's share"),
    d.two.trim() === '' ? null : share(d.two, "The two main crops' share"), ...periods.map((p) => p.years)];
  const bad = fields.find((f): f is string => typeof f === 'string');
  if (bad) return { problem: bad };
  if (!(Number.isFinite(exempt) && exempt >= 0)) return { problem: 'The exempt area is a number of hectares, 0 or more' };
  const [sameCrop, sameFamily, minCrops, main, two] = fields as number[];
  const rules: RuleSet = {
    ...d.rules, maxSameCrop: sameCrop!, maxSameFamily: sameFamily!,
    returnPeriods: periods.map((p) => ({ family: p.family, years: p.years as number })),
    custom: { exemptBelowHa: exempt, minCrops: Math.max(1, minCrops!), mainMax: main!, twoMainMax: two ?? null },
    permanentCrops: d.permanent.split(',').map((s) => s.trim()).filter(Boolean),
  };
  const problem = ruleSetProblem(rules);
  return problem ? { problem } : { rules };
}

export function PlanRules({ farm, rules, onSaved }: { farm: string; rules: FarmRules; onSaved(r: FarmRules): void }) {
  const api = useApi();
  const [d, setD] = useState(() => draftOf(rules.rules));
  const [problem, setProblem] = useState<string | null>(null);
  const set = (patch: Partial<Draft>) => { setD((x) => ({ ...x, ...patch })); setProblem(null); };
  const keep = (next: RuleSet | null) => api.setRotationRules({ farm, rules: next }).then((r) => {
    setD(draftOf(r.rules));
    onSaved(r);
    say(next ? 'Rule set saved for this farm: the plan is checked against it.' : 'Back to the default rule set for this farm.');
  }, (err: unknown) => setProblem(err instanceof Error ? err.message : String(err)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = read(d);
    if ('problem' in r) return setProblem(r.problem);
    void keep(r.rules);
  };
  const field = (label: string, value: string, on: (v: string) => void, hint?: string) => (
    <label>{label} <input value={value} size={5} inputMode="decimal" onChange={(e) => on(e.target.value)} />{hint ? <span className="muted"> {hint}</span> : null}</label>
  );
  return (
    <form className="plan-rules" aria-label="Rotation rules of this farm" onSubmit={submit}>
      <p className="muted">{rules.chosen ? "This farm's own rule set." : 'The default rule set (not yet chosen for this farm).'} Default return periods are common agronomic guidance against soil-borne pests and diseases (clubroot, foot rots, cyst nematodes), not a regulation: set your adviser&apos;s. Diversification as Regulation (EU) No 1307/2013, Article 44.</p>
      <fieldset>
        <legend>Crop diversification, on each campaign's arable area</legend>
        <label>Rule{' '}
          <select aria-label="Diversification rule" value={d.rules.diversification} onChange={(e) => set({ rules: { ...d.rules, diversification: e.target.value as RuleSet['diversification'] } })}>
            <option value="eu-1307-2013">Regulation (EU) No 1307/2013, Art. 44 (10–30 ha: 2 crops, main ≤ 75 %; over 30 ha: 3 crops, two main ≤ 95 %)</option>
            <option value="custom">My own thresholds</option>
            <option value="off">Not checked</option>
          </select>
        </label>
        {d.rules.diversification === 'custom' ? (
          <div className="plan-fields">
            {field('Exempt below (ha)', d.exempt, (v) => set({ exempt: v }))}
            {field('At least, crops', d.minCrops, (v) => set({ minCrops: v }))}
            {field('Main crop at most (%)', d.main, (v) => set({ main: v }))}
            {field('Two main crops at most (%)', d.two, (v) => set({ two: v }), 'blank: not checked')}
          </div>
        ) : null}
        <label>Permanent crops, left out of the arable area <input value={d.permanent} onChange={(e) => set({ permanent: e.target.value })} /></label>
      </fieldset>
      <fieldset>
        <legend>Monoculture: the most campaigns running on one parcel (0: not checked)</legend>
        <div className="plan-fields">
          {field('Same crop', d.sameCrop, (v) => set({ sameCrop: v }))}
          {field('Same family', d.sameFamily, (v) => set({ sameFamily: v }))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Return periods: the least years before a family comes back on a parcel</legend>
        <ul className="plan-periods">
          {d.periods.map((p, i) => (
            <li key={i}>
              <input aria-label={`Family ${i + 1}`} list="plan-families" value={p.family} onChange={(e) => set({ periods: d.periods.map((x, j) => (j === i ? { ...x, family: e.target.value } : x)) })} />
              <input aria-label={`${p.family || `Family ${i + 1}`} return period in years`} size={3} inputMode="numeric" value={p.years} onChange={(e) => set({ periods: d.periods.map((x, j) => (j === i ? { ...x, years: e.target.value } : x)) })} />
              <span className="muted"> years </span>
              <button type="button" aria-label={`Remove ${p.family || 'this family'}'s return period`} onClick={() => set({ periods: d.periods.filter((_, j) => j !== i) })}>✕</button>
            </li>
          ))}
        </ul>
        <button type="button" onClick={() => set({ periods: [...d.periods, { family: '', years: '3' }] })}>+ Add a family</button>
      </fieldset>
      {problem ? <p role="alert" className="error">{problem}</p> : null}
      <div className="plan-rules-buttons">
        <button type="submit">Save the rule set</button>
        <button type="button" onClick={() => { setD(draftOf(defaultRuleSet())); void keep(null); }}>Back to the defaults</button>
      </div>
    </form>
  );
}
