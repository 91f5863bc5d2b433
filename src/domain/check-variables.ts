// A check's own variables. A secret one's value is written, never read back: the API shows it as
// null, and an update that sends null for it (as a client that read the check and sends it back
// does) keeps the value stored.

export interface CheckVariable {
  key: string;
  value: string | null;
  locked?: boolean;
  secret?: boolean;
}

/** As the API shows them: secret values withheld. */
export function showVariables(vars: CheckVariable[] | null | undefined): CheckVariable[] | null | undefined {
  return vars?.map((v) => (v.secret ? { ...v, value: null } : v));
}

/**
 * The variables to store: a null value takes the value stored under the same key for a secret
 * variable. Returns the key whose value is missing when there is none to keep.
 */
export function resolveVariables(
  next: CheckVariable[] | null | undefined,
  stored: CheckVariable[] | null | undefined,
): { vars: CheckVariable[] | null | undefined; missing?: string } {
  if (!next) return { vars: next };
  const kept = new Map((stored ?? []).filter((v) => v.secret && v.value !== null).map((v) => [v.key, v.value]));
  const vars: CheckVariable[] = [];
  for (const v of next) {
    if (v.value !== null) vars.push(v);
    else if (v.secret && kept.has(v.key)) vars.push({ ...v, value: kept.get(v.key)! });
    else return { vars, missing: v.key };
  }
  return { vars };
}
