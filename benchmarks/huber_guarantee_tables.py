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


DEVELOPMENT = {"hospital": hospital, "retail": retail, "rent": rent, "crop": crop, "energy": energy,
               "clinic_small": clinic_small}
HELD_OUT = {"salary": salary, "delivery": delivery, "premium": premium, "bikes": bikes}
