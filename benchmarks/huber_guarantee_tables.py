"""Regression tables of the DPHuberRegressor guarantee-ratio benchmark (benchmarks/huber_guarantee.py).; ; DEVELOPMENT: hospital, retail, rent, crop, energy, clinic_small (an audit's designs: one-hot blocks, targets in the; hundreds, loose public label ranges), on which GUARANTEE_RATIO_LIMIT was fixed. HELD_OUT: salary, delivery, premium,; bikes, written after the limit was fixed. Each returns (raw columns, y, schema columns, public label range, text)."""
# ruff: noqa: E501
import numpy as np

import dpcvx

N, C = dpcvx.NumericColumn, dpcvx.CategoricalColumn


def hospital(rng):
    """Inpatient cost (hundreds of $, lognormal skew); 25 departments; age with NaN; a near-constant flag."""
    n = 4000
    age = rng.uniform(18, 90, n)
    los = np.minimum(rng.geometric(0.25, n), 60).astype(float)  # days, public [0, 365]
    dept = rng.integers(0, 25, n)
    flag = (rng.random(n) < 0.01).astype(float)  # near-constant
    charlson = rng.poisson(1.5, n).astype(float)  # [0, 30]
    eff = np.random.default_rng(11).normal(0, 0.35, 25)
    logy = 5.3 + 0.006 * age + 0.09 * los + eff[dept] + 0.08 * charlson + 0.3 * flag + rng.normal(0, 0.45, n)
    y = np.exp(logy)  # median ~ 400, long right tail
    y = np.clip(y, 0, 50000)
    age[rng.random(n) < 0.08] = np.nan
    raw = {"age": age, "los": los, "dept": np.array([f"D{k:02d}" for k in dept]), "flag": flag,
           "charlson": charlson}
    cols = (N("age", 0, 110, missing=50.0, missing_indicator=True), N("los", 0, 365),
            C("dept", tuple(f"D{k:02d}" for k in range(25))), N("flag", 0, 1), N("charlson", 0, 30))
    return raw, y, cols, (0.0, 50000.0), "cost ~ lognormal in hundreds; 25 depts; NaN age; near-constant flag"


def retail(rng):
    """Weekly store sales (thousands), 45 stores, heavy-tailed (t2) noise; temp and fuel fill part of their range."""
    n = 6000
    store = rng.integers(0, 45, n)
    temp = rng.normal(15, 8, n)  # public [-40, 50]
    fuel = rng.uniform(2.5, 4.2, n)  # public [0, 10]
    holiday = (rng.random(n) < 0.07)
    cpi = rng.uniform(126, 228, n)  # public [0, 400]
    eff = np.random.default_rng(12).gamma(2.0, 120, 45)
    y = eff[store] + 2.0 * temp - 30 * fuel + 80 * holiday + 0.5 * cpi + 40 * rng.standard_t(2, n)
    y = np.clip(y, 0, 5000)
    raw = {"store": np.array([f"S{k}" for k in store]), "temp": np.clip(temp, -40, 50), "fuel": fuel,
           "holiday": np.where(holiday, "yes", "no"), "cpi": cpi}
    cols = (C("store", tuple(f"S{k}" for k in range(45))), N("temp", -40, 50), N("fuel", 0, 10),
            C("holiday", ("no", "yes")), N("cpi", 0, 400))
    return raw, y, cols, (0.0, 5000.0), "sales in hundreds; 45 stores; t2 noise; partial ranges"


def rent(rng):
    """Monthly rent ($), 60 neighbourhoods; public range [0, 20000] ~ 50x the label's std (~400)."""
    n = 9000
    hood = rng.integers(0, 60, n)
    sqft = rng.gamma(6, 140, n)  # ~ 840, public [0, 10000]
    beds = np.clip(np.round(sqft / 400 + rng.normal(0, 0.6, n)), 0, 10)
    year = rng.integers(1900, 2024, n).astype(float)  # public [1800, 2030]
    furnished = rng.random(n) < 0.2
    eff = np.random.default_rng(13).normal(0, 180, 60)
    y = 1400 + 0.45 * (sqft - 840) + 60 * beds + 1.2 * (year - 1960) + eff[hood] + 90 * furnished \
        + rng.normal(0, 150, n)
    y = np.clip(y, 0, 20000)
    raw = {"hood": np.array([f"H{k}" for k in hood]), "sqft": np.clip(sqft, 0, 10000), "beds": beds, "year": year,
           "furnished": np.where(furnished, "1", "0")}
    cols = (C("hood", tuple(f"H{k}" for k in range(60))), N("sqft", 0, 10000), N("beds", 0, 10),
            N("year", 1800, 2030), C("furnished", ("0", "1")))
    return raw, y, cols, (0.0, 20000.0), "rent ~1,500 +- 400 in [0, 20000]; 60 hoods"


def crop(rng):
    """Yield with an interaction (rain x temp, a hump) the linear model cannot capture; 12 soils."""
    n = 3000
    rain = rng.uniform(200, 1200, n)  # public [0, 3000]
    temp = rng.uniform(10, 32, n)  # public [-10, 45]
    soil = rng.integers(0, 12, n)
    n_fert = rng.uniform(0, 200, n)  # public [0, 400]
    eff = np.random.default_rng(14).normal(0, 0.3, 12)
    hump = -((rain - 700) / 300) ** 2 - ((temp - 21) / 6) ** 2 + 0.8 * ((rain - 700) / 300) * ((temp - 21) / 6)
    y = 6 + 1.2 * hump + 0.004 * n_fert + eff[soil] + rng.normal(0, 0.7, n)
    y = np.clip(y, 0, 20)
    raw = {"rain": rain, "temp": temp, "soil": np.array([f"soil{k}" for k in soil]), "n_fert": n_fert}
    cols = (N("rain", 0, 3000), N("temp", -10, 45), C("soil", tuple(f"soil{k}" for k in range(12))),
            N("n_fert", 0, 400))
    return raw, y, cols, (0.0, 20.0), "yield t/ha; hump interaction; 12 soils"


def energy(rng):
    """Household kWh (hundreds); many rows, few columns, NaN cells in two columns."""
    n = 16000
    area = rng.lognormal(4.6, 0.35, n)  # m2 ~ 100, public [0, 1000]
    occ = rng.integers(1, 7, n).astype(float)  # [0, 15]
    hdd = rng.uniform(1500, 4000, n)  # [0, 8000]
    heat = rng.integers(0, 4, n)
    eff = np.array([0, 80, -60, 150.0])
    y = 120 + 1.6 * area + 35 * occ + 0.05 * hdd + eff[heat] + rng.gamma(2, 40, n)
    y = np.clip(y, 0, 5000)
    area[rng.random(n) < 0.1] = np.nan
    hdd[rng.random(n) < 0.05] = np.nan
    raw = {"area": np.clip(area, 0, 1000), "occ": occ, "hdd": hdd, "heat": np.array(["gas", "elec", "oil", "heatpump"])[heat]}
    cols = (N("area", 0, 1000, missing=100.0, missing_indicator=True), N("occ", 0, 15),
            N("hdd", 0, 8000, missing=2500.0, missing_indicator=True), C("heat", ("gas", "elec", "oil", "heatpump")))
    return raw, y, cols, (0.0, 5000.0), "kWh in hundreds; NaN in two columns"


def clinic_small(rng):
    """A small clinic table: 700 rows, 36 site levels; target in hundreds, skewed. Below n eps / d = 50."""
    n = 700
    site = rng.integers(0, 36, n)
    bmi = rng.normal(27, 4, n)  # [10, 70]
    age = rng.uniform(20, 80, n)  # [0, 120]
    eff = np.random.default_rng(15).normal(0, 30, 36)
    y = 150 + 3 * (bmi - 27) + 1.5 * (age - 50) + eff[site] + rng.gamma(1.5, 30, n)
    y = np.clip(y, 0, 1000)
    raw = {"site": np.array([f"c{k}" for k in site]), "bmi": np.clip(bmi, 10, 70), "age": age}
    cols = (C("site", tuple(f"c{k}" for k in range(36))), N("bmi", 10, 70), N("age", 0, 120))
    return raw, y, cols, (0.0, 1000.0), "small: 700 rows, 36 sites"


def salary(rng):
    """Annual salary (dollars) over 40 job codes and 6 grades; public range [0, 500000]."""
    n = 8000
    job = rng.integers(0, 40, n)
    grade = rng.integers(0, 6, n)
    tenure = rng.exponential(6, n)
    hours = rng.normal(38, 5, n)
    eff = np.random.default_rng(21).normal(0, 9000, 40)
    y = 52000 + eff[job] + 6000 * grade + 900 * np.minimum(tenure, 40) + 300 * (hours - 38) + rng.normal(0, 7000, n)
    y = np.clip(y, 0, 500000)
    raw = {"job": np.array([f"J{k}" for k in job]), "grade": np.array([f"G{k}" for k in grade]),
           "tenure": np.clip(tenure, 0, 50), "hours": np.clip(hours, 0, 80)}
    cols = (C("job", tuple(f"J{k}" for k in range(40))), C("grade", tuple(f"G{k}" for k in range(6))),
            N("tenure", 0, 50), N("hours", 0, 80))
    return raw, y, cols, (0.0, 500000.0), "salary; 40 jobs, 6 grades"


def delivery(rng):
    """Delivery time (minutes) from distance and load; 8 regions; dense numeric signal, public range [0, 600]."""
    n = 5000
    dist = rng.gamma(3, 4, n)
    load = rng.uniform(0, 30, n)
    region = rng.integers(0, 8, n)
    stops = rng.poisson(4, n).astype(float)
    y = 15 + 2.2 * dist + 0.6 * load + 3 * stops + np.array([0, 5, -4, 8, 2, -6, 10, 1.0])[region] \
        + rng.normal(0, 6, n)
    y = np.clip(y, 0, 600)
    raw = {"dist": np.clip(dist, 0, 200), "load": load, "region": np.array([f"R{k}" for k in region]),
           "stops": np.clip(stops, 0, 50)}
    cols = (N("dist", 0, 200), N("load", 0, 100), C("region", tuple(f"R{k}" for k in range(8))), N("stops", 0, 50))
    return raw, y, cols, (0.0, 600.0), "minutes; dense numeric"


def premium(rng):
    """Insurance premium (dollars) over 100 zones; many rows; public range [0, 10000]."""
    n = 15000
    zone = rng.integers(0, 100, n)
    age = rng.uniform(18, 80, n)
    cover = rng.choice([1, 2, 3], n)
    eff = np.random.default_rng(22).normal(0, 120, 100)
    y = 600 + eff[zone] + 8 * np.abs(age - 45) + 150 * cover + rng.gamma(2, 60, n)
    y = np.clip(y, 0, 10000)
    raw = {"zone": np.array([f"Z{k}" for k in zone]), "age": age, "cover": np.array([f"c{k}" for k in cover])}
    cols = (C("zone", tuple(f"Z{k}" for k in range(100))), N("age", 0, 120), C("cover", ("c1", "c2", "c3")))
    return raw, y, cols, (0.0, 10000.0), "premium; 100 zones"


def bikes(rng):
    """Hourly rentals over 24 hours one-hot and weather; counts, public range [0, 2000]."""
    n = 7000
    hour = rng.integers(0, 24, n)
    temp = rng.normal(16, 8, n)
    rain = rng.random(n) < 0.15
    profile = 120 * np.exp(-((np.arange(24) - 8) / 2.0) ** 2) + 160 * np.exp(-((np.arange(24) - 17.5) / 2.5) ** 2) + 20
    y = profile[hour] + 4 * (temp - 16) - 60 * rain + rng.normal(0, 30, n)
    y = np.clip(y, 0, 2000)
    raw = {"hour": np.array([f"h{k}" for k in hour]), "temp": np.clip(temp, -20, 45),
           "rain": np.where(rain, "y", "n")}
    cols = (C("hour", tuple(f"h{k}" for k in range(24))), N("temp", -20, 45), C("rain", ("n", "y")))
    return raw, y, cols, (0.0, 2000.0), "bikes; 24 hours one-hot"


def used_cars(rng, n):
    """Used-car price (dollars, about 15,000 +- 6,000) over 20 makes and 4 body types; public range [0, 200000]."""
    make = rng.integers(0, 20, n)
    body = rng.integers(0, 4, n)
    age = rng.uniform(0, 20, n)  # years, public [0, 50]
    miles = np.clip(age * rng.gamma(4, 3000, n), 0, 400000)  # public [0, 500000]
    condition = rng.integers(1, 6, n).astype(float)  # 1..5, public [1, 5]
    eff = np.random.default_rng(31).normal(0, 2500, 20)
    y = 24000 + eff[make] + np.array([0, 1500, 3000, -1000.0])[body] - 700 * age - 0.03 * miles \
        + 900 * (condition - 3) + rng.normal(0, 2500, n)
    y = np.clip(y, 0, 200000)
    raw = {"make": np.array([f"M{k}" for k in make]), "body": np.array([f"b{k}" for k in body]), "age": age,
           "miles": miles, "condition": condition}
    cols = (C("make", tuple(f"M{k}" for k in range(20))), C("body", tuple(f"b{k}" for k in range(4))),
            N("age", 0, 50), N("miles", 0, 500000), N("condition", 1, 5))
    return raw, y, cols, (0.0, 200000.0), "used-car price ~15,000 +- 6,000 in [0, 200000]"


def call_counts(rng, n):
    """Calls a shift (Poisson, about 30 +- 9) over 7 weekdays, staff and a campaign flag; public range [0, 2000]."""
    day = rng.integers(0, 7, n)
    staff = rng.integers(2, 15, n).astype(float)  # public [0, 50]
    campaign = rng.random(n) < 0.2
    temp = rng.normal(12, 9, n)  # public [-40, 50]
    rate = np.exp(2.9 + np.array([0.25, 0.1, 0, 0, 0.05, -0.3, -0.4])[day] + 0.03 * staff + 0.35 * campaign
                  - 0.01 * temp)
    y = rng.poisson(rate).astype(float)
    raw = {"day": np.array([f"d{k}" for k in day]), "staff": staff, "campaign": np.where(campaign, "y", "n"),
           "temp": np.clip(temp, -40, 50)}
    cols = (C("day", tuple(f"d{k}" for k in range(7))), N("staff", 0, 50), C("campaign", ("n", "y")),
            N("temp", -40, 50))
    return raw, y, cols, (0.0, 2000.0), "calls per shift ~30 +- 9 in [0, 2000]"


def trip_seconds(rng, n):
    """Taxi trip duration (seconds, about 900 +- 400) from distance, 24 hours one-hot and rain; public [0, 86400]."""
    dist = rng.gamma(2.5, 1.6, n)  # km, public [0, 100]
    hour = rng.integers(0, 24, n)
    rain = rng.random(n) < 0.12
    slow = 1 + 0.5 * np.exp(-((np.arange(24) - 8.5) / 1.5) ** 2) + 0.6 * np.exp(-((np.arange(24) - 17.5) / 2) ** 2)
    y = 120 + 150 * dist * slow[hour] + 90 * rain + rng.gamma(2, 60, n)
    y = np.clip(y, 0, 86400)
    raw = {"dist": np.clip(dist, 0, 100), "hour": np.array([f"h{k}" for k in hour]), "rain": np.where(rain, "y", "n")}
    cols = (N("dist", 0, 100), C("hour", tuple(f"h{k}" for k in range(24))), C("rain", ("n", "y")))
    return raw, y, cols, (0.0, 86400.0), "trip seconds ~900 +- 400 in [0, 86400] (a day)"


def sensor_offset(rng, n):
    """A calibrated reading near 500 (+- 4) from five dense inputs in [0, 1]; public range [0, 1000]."""
    Z = rng.random((n, 5))
    y = 500 + Z @ np.array([6.0, -4.0, 3.0, 2.0, -5.0]) + rng.normal(0, 1.5, n)
    y = np.clip(y, 0, 1000)
    raw = {f"z{k}": Z[:, k] for k in range(5)}
    cols = tuple(N(f"z{k}", 0, 1) for k in range(5))
    return raw, y, cols, (0.0, 1000.0), "offset 500 +- 4 in [0, 1000]"


def invoices(rng, n):
    """Invoice totals (dollars, lognormal, about 3,000) over 12 product lines and 3 tiers; public [0, 1000000]."""
    line = rng.integers(0, 12, n)
    tier = rng.integers(0, 3, n)
    items = rng.poisson(6, n).astype(float) + 1  # public [0, 200]
    eff = np.random.default_rng(32).normal(0, 0.3, 12)
    y = np.exp(6.9 + eff[line] + np.array([0, 0.3, 0.6])[tier] + 0.06 * items + rng.normal(0, 0.35, n))
    y = np.clip(y, 0, 1e6)
    raw = {"line": np.array([f"L{k}" for k in line]), "tier": np.array([f"t{k}" for k in tier]),
           "items": np.clip(items, 0, 200)}
    cols = (C("line", tuple(f"L{k}" for k in range(12))), C("tier", ("t0", "t1", "t2")), N("items", 0, 200))
    return raw, y, cols, (0.0, 1e6), "invoice ~3,000 lognormal in [0, 1e6]"


def er_wait(rng, n):
    """Emergency-room wait (minutes, about 95 +- 45) over 5 triage levels, hour and staff; public [0, 1440]."""
    triage = rng.integers(0, 5, n)
    hour = rng.uniform(0, 24, n)  # public [0, 24]
    staff = rng.integers(3, 20, n).astype(float)  # public [0, 60]
    busy = np.sin(np.pi * hour / 24) ** 2
    y = 60 + np.array([-40, -20, 0, 25, 40.0])[triage] + 70 * busy - 2.5 * (staff - 11) + rng.gamma(3, 10, n)
    y = np.clip(y, 0, 1440)
    raw = {"triage": np.array([f"T{k}" for k in triage]), "hour": hour, "staff": staff}
    cols = (C("triage", tuple(f"T{k}" for k in range(5))), N("hour", 0, 24), N("staff", 0, 60))
    return raw, y, cols, (0.0, 1440.0), "wait minutes ~95 +- 45 in [0, 1440] (a day)"


def store_orders(rng, n):
    """Online orders a day (negative binomial, about 220 +- 60) over 30 stores and a promo; public [0, 20000]."""
    store = rng.integers(0, 30, n)
    promo = rng.random(n) < 0.25
    price = rng.uniform(0.8, 1.2, n)  # price index, public [0, 3]
    eff = np.random.default_rng(41).normal(0, 0.15, 30)
    mu = np.exp(5.35 + eff[store] + 0.2 * promo - 0.8 * (price - 1))
    y = rng.negative_binomial(40, 40 / (40 + mu)).astype(float)
    y = np.clip(y, 0, 20000)
    raw = {"store": np.array([f"s{k}" for k in store]), "promo": np.where(promo, "y", "n"), "price": price}
    cols = (C("store", tuple(f"s{k}" for k in range(30))), C("promo", ("n", "y")), N("price", 0, 3))
    return raw, y, cols, (0.0, 20000.0), "orders ~220 +- 60 in [0, 20000]"


def loan_amount(rng, n):
    """Mortgage amount (dollars, about 250,000 +- 90,000) from income, 10 regions, term; public [0, 5000000]."""
    income = rng.gamma(5, 16000, n)  # public [0, 1000000]
    region = rng.integers(0, 10, n)
    term = rng.choice([15, 20, 30], n).astype(float)  # public [0, 40]
    eff = np.random.default_rng(42).normal(0, 30000, 10)
    y = 40000 + 2.3 * income + eff[region] + 2500 * (term - 20) + rng.normal(0, 40000, n)
    y = np.clip(y, 0, 5e6)
    raw = {"income": np.clip(income, 0, 1e6), "region": np.array([f"r{k}" for k in region]), "term": term}
    cols = (N("income", 0, 1e6), C("region", tuple(f"r{k}" for k in range(10))), N("term", 0, 40))
    return raw, y, cols, (0.0, 5e6), "loan ~250,000 +- 90,000 in [0, 5e6]"


def calories(rng, n):
    """Daily calories (about 2,100 +- 350) from weight, activity level (4) and age; public [0, 10000]."""
    weight = rng.normal(75, 14, n)  # kg, public [20, 250]
    level = rng.integers(0, 4, n)
    age = rng.uniform(18, 85, n)  # public [0, 120]
    y = 900 + 14 * weight + np.array([0, 200, 400, 650.0])[level] - 5 * (age - 50) + rng.normal(0, 180, n)
    y = np.clip(y, 0, 10000)
    raw = {"weight": np.clip(weight, 20, 250), "level": np.array([f"a{k}" for k in level]), "age": age}
    cols = (N("weight", 20, 250), C("level", ("a0", "a1", "a2", "a3")), N("age", 0, 120))
    return raw, y, cols, (0.0, 10000.0), "calories ~2,100 +- 350 in [0, 10000]"


def battery_mv(rng, n):
    """A cell's resting voltage (mV, about 3,700 +- 25) from temperature, age and 6 lots; public [0, 5000]."""
    temp = rng.uniform(-10, 45, n)  # public [-40, 85]
    cycles = rng.uniform(0, 1500, n)  # public [0, 5000]
    lot = rng.integers(0, 6, n)
    y = 3740 + 0.8 * (temp - 20) - 0.04 * cycles + np.array([0, 8, -6, 12, -10, 3.0])[lot] + rng.normal(0, 8, n)
    y = np.clip(y, 0, 5000)
    raw = {"temp": temp, "cycles": cycles, "lot": np.array([f"l{k}" for k in lot])}
    cols = (N("temp", -40, 85), N("cycles", 0, 5000), C("lot", tuple(f"l{k}" for k in range(6))))
    return raw, y, cols, (0.0, 5000.0), "millivolts 3,700 +- 25 in [0, 5000]"


def _sized(make, n):
    return lambda rng: make(rng, n)


#: The sizes of the second families: n rows in all (75 % train).
SIZES = (2000, 10000, 50000)
#: A second development family, added in the fifty-fourth session after a probe's false alarms (targets in the
#: hundreds to hundreds of thousands with an honest loose public range; n 2,000 to 50,000). Written before any fit.
DEVELOPMENT_II = {f"{name}_{n // 1000}k": _sized(make, n) for name, make in
                  (("used_cars", used_cars), ("call_counts", call_counts), ("trip_seconds", trip_seconds),
                   ("sensor_offset", sensor_offset), ("invoices", invoices)) for n in SIZES}
#: Its held-out family, written with it, before any result on either was seen.
HELD_OUT_II = {f"{name}_{n // 1000}k": _sized(make, n) for name, make in
               (("er_wait", er_wait), ("store_orders", store_orders), ("loan_amount", loan_amount),
                ("calories", calories), ("battery_mv", battery_mv)) for n in SIZES}

DEVELOPMENT = {"hospital": hospital, "retail": retail, "rent": rent, "crop": crop, "energy": energy,
               "clinic_small": clinic_small}
HELD_OUT = {"salary": salary, "delivery": delivery, "premium": premium, "bikes": bikes}
