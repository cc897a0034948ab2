"""Sums twiggy's per-item sizes (stdin) by the crate that owns each function; prints a table."""
import collections
import re
import sys

totals = collections.Counter()
for line in sys.stdin:
    match = re.match(r"\s*(\d+)\s*┊\s*[\d.]+%\s*┊\s*(.*)", line)
    if not match:
        continue
    size, item = int(match.group(1)), match.group(2)
    if item.startswith(("Σ", "...")):
        continue
    if item.startswith(("custom section", '"function names"')):
        owner = "(names and custom sections: not shipped)"
    elif item.startswith("data segment"):
        owner = "(data: strings, prompts, schemas)"
    else:
        # A trait impl counts for the trait's crate (`<PhantomData<T> as serde_core::de::DeserializeSeed>`
        # is serde code); anything else for its first path segment (`serde_json::de::...`).
        trait_impl = re.match(r"<.+? as ([a-z_][a-z0-9_]*)(?:\[[0-9a-f]+\])?::", item)
        found = trait_impl or re.search(r"([a-z_][a-z0-9_]*)(?:\[[0-9a-f]+\])?::", item)
        if found:
            owner = found.group(1)
        elif " shim" in item:
            owner = "(exported functions, with what was inlined into them)"
        else:
            owner = "(glue: tables, intrinsics)"
    totals[owner] += size
for owner, size in totals.most_common():
    print(f"{owner:44}{size:9}")
