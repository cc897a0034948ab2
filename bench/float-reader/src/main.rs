// The time serde_json takes to read numbers with and without `float_roundtrip`, and how many it reads one
// unit off without it (figures in bench/RESULTS.md).
use std::time::Instant;
fn main() {
    // 200,000 doubles with 17 significant digits, and 200,000 short decimals.
    let mut x: u64 = 0x9E3779B97F4A7C15;
    let mut long = Vec::new();
    let mut short = Vec::new();
    for i in 0..200_000u64 {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        let f = f64::from_bits((x >> 2) | 0x3000_0000_0000_0000);
        long.push(format!("{:.16e}", f));
        short.push(format!("{}.{}", i % 1000, i % 97));
    }
    for (name, items) in [("17-digit", &long), ("short", &short)] {
        let text = format!("[{}]", items.join(","));
        let mut best = f64::MAX;
        let mut wrong = 0;
        for _ in 0..7 {
            let start = Instant::now();
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let elapsed = start.elapsed().as_secs_f64();
            best = best.min(elapsed);
            wrong = value.as_array().unwrap().iter().zip(items.iter()).filter(|(v, t)| v.as_f64().unwrap().to_bits() != t.parse::<f64>().unwrap().to_bits()).count();
        }
        println!("{name}: {:.1} ns/number, {wrong} of {} read off", best * 1e9 / items.len() as f64, items.len());
    }
}
