// How long something took or has lasted, in the page's language through `Intl` ("12 sec", "3 min",
// "1 hr 5 min"; "12 秒", "3 分", "1 時間 5 分"): no unit is spelt by the page itself.

const unit = (locale, name, value) => new Intl.NumberFormat(locale, { style: "unit", unit: name, unitDisplay: "short" }).format(value);

/** A duration in `locale`: seconds under a minute (or whole minutes, rounded, with `seconds: false`), then minutes, then hours and minutes. */
export function duration(ms, locale, { seconds = true } = {}) {
  const whole = Math.max(0, Number.isFinite(ms) ? ms : 0);
  if (seconds && whole < 60_000) return unit(locale, "second", Math.floor(whole / 1000));
  const minutes = seconds ? Math.floor(whole / 60_000) : Math.round(whole / 60_000);
  if (minutes < 60) return unit(locale, "minute", minutes);
  const rest = minutes % 60;
  const hours = unit(locale, "hour", Math.floor(minutes / 60));
  return rest === 0 ? hours : `${hours} ${unit(locale, "minute", rest)}`;
}
