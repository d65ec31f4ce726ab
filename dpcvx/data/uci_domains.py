"""Public domains of the UCI Adult and KDD Cup 99 columns, as :class:`PublicSchema` objects.

Every bound and category list below comes from documentation or from a
stated judgement, never from a statistic computed by dpcvx; the source of
each is written next to it. A judgement bound is a public, data-independent
choice: values outside it are clipped, which costs accuracy, not privacy.
Where a judgement was informed by the public release of the file itself
(the author has seen these public files), the source says so.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..validation import check_choice
from .preprocessing import CategoricalColumn, Column, NumericColumn, PublicSchema

__all__ = [
    "adult_schema", "kdd_schema", "ADULT_COLUMNS", "KDD_COLUMNS", "KDD_DOS_ATTACKS", "KDD_LOG_COLUMNS",
    "KDD_SCALES", "MISSING",
]  # fmt: skip

# How the UCI files write a missing value (adult.names: "unknown values are denoted by '?'").
# In a private schema it is a category of its own in every categorical column, and a missing
# numeric value is imputed with the column's public lower bound: every record is kept, so the
# row count and the feature layout never depend on which values are missing.
MISSING = "?"
MISSING_SOURCE = "adult.names: unknown values are written '?'; a category of its own (public choice)"

ADULT_NAMES = "UCI adult.names, attribute list"
ADULT_EXTRACTION = (
    "UCI adult.names, extraction condition ((AAGE>16) && (AGI>100) && (AFNLWGT>1) && (HRSWK>0))"
)

# Columns of adult.data / adult.test, in file order (the 15th is the label).
ADULT_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country",
)  # fmt: skip

ADULT_CATEGORIES = {
    "workclass": (
        "Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
        "State-gov", "Without-pay", "Never-worked",
    ),
    "education": (
        "Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
        "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th", "Doctorate",
        "5th-6th", "Preschool",
    ),
    "marital-status": (
        "Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
        "Married-spouse-absent", "Married-AF-spouse",
    ),
    "occupation": (
        "Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
        "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
        "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
        "Armed-Forces",
    ),
    "relationship": ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    "sex": ("Female", "Male"),
    "native-country": (
        "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
        "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China", "Cuba",
        "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica", "Vietnam", "Mexico",
        "Portugal", "Ireland", "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan",
        "Haiti", "Columbia", "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand",
        "Yugoslavia", "El-Salvador", "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands",
    ),
}  # fmt: skip

ADULT_BOUNDS = {
    "age": (17, 90, f"lower: {ADULT_EXTRACTION} (AAGE>16); upper: 90 is the top code of age "
            "in the 1994 Census CPS public-use files (judgement: not stated in adult.names)"),
    "fnlwgt": (1, 1_500_000, f"lower: {ADULT_EXTRACTION} (AFNLWGT>1); upper: judgement, a round "
               "cap for a CPS survey weight, chosen by the author after seeing the public file"),
    "education-num": (1, 16, f"{ADULT_NAMES}: the ordinal code of the 16 listed education levels"),
    "capital-gain": (0, 99_999, "99999 is the CPS top code of capital gains"),
    "capital-loss": (0, 99_999, "judgement: the same five-digit cap as capital-gain"),
    "hours-per-week": (1, 99, f"lower: {ADULT_EXTRACTION} (HRSWK>0); upper: 99, the CPS top code "
                       "of the two-digit hours field"),
}  # fmt: skip

KDD_TASK = "KDD Cup 99 task description (kdd.ics.uci.edu kddcup99 task.html), feature definitions"
NSL_KDD_ARFF = (
    "value list declared in the NSL-KDD ARFF header (KDDTrain+.arff), which covers the full KDD'99 data"
)

# Columns of kddcup.data_10_percent, in file order (the 42nd is the label).
KDD_COLUMNS = (
    "duration", "protocol_type", "service", "flag", "src_bytes", "dst_bytes", "land",
    "wrong_fragment", "urgent", "hot", "num_failed_logins", "logged_in", "num_compromised",
    "root_shell", "su_attempted", "num_root", "num_file_creations", "num_shells",
    "num_access_files", "num_outbound_cmds", "is_host_login", "is_guest_login", "count",
    "srv_count", "serror_rate", "srv_serror_rate", "rerror_rate", "srv_rerror_rate",
    "same_srv_rate", "diff_srv_rate", "srv_diff_host_rate", "dst_host_count",
    "dst_host_srv_count", "dst_host_same_srv_rate", "dst_host_diff_srv_rate",
    "dst_host_same_src_port_rate", "dst_host_srv_diff_host_rate", "dst_host_serror_rate",
    "dst_host_srv_serror_rate", "dst_host_rerror_rate", "dst_host_srv_rerror_rate",
)  # fmt: skip

# Denial-of-service attack labels of the KDD Cup 99 task (attack-type table of the task).
KDD_DOS_ATTACKS = ("back", "land", "neptune", "pod", "smurf", "teardrop")

KDD_CATEGORIES = {
    "protocol_type": ("tcp", "udp", "icmp"),
    "service": (
        "aol", "auth", "bgp", "courier", "csnet_ns", "ctf", "daytime", "discard", "domain",
        "domain_u", "echo", "eco_i", "ecr_i", "efs", "exec", "finger", "ftp", "ftp_data",
        "gopher", "harvest", "hostnames", "http", "http_2784", "http_443", "http_8001",
        "imap4", "IRC", "iso_tsap", "klogin", "kshell", "ldap", "link", "login", "mtp", "name",
        "netbios_dgm", "netbios_ns", "netbios_ssn", "netstat", "nnsp", "nntp", "ntp_u", "other",
        "pm_dump", "pop_2", "pop_3", "printer", "private", "red_i", "remote_job", "rje", "shell",
        "smtp", "sql_net", "ssh", "sunrpc", "supdup", "systat", "telnet", "tftp_u", "tim_i",
        "time", "urh_i", "urp_i", "uucp", "uucp_path", "vmnet", "whois", "X11", "Z39_50",
    ),
    "flag": ("OTH", "REJ", "RSTO", "RSTOS0", "RSTR", "S0", "S1", "S2", "S3", "SF", "SH"),
}  # fmt: skip

_INDICATOR = f'{KDD_TASK}: "1 if ...; 0 otherwise"'
_RATE = (
    "definition: a fraction of connections "
    "(task description, traffic features, and their host-based analogues)"
)
_EVENT_COUNT = "judgement: events within one connection, capped at 10 (more adds little to a linear model)"
KDD_BOUNDS = {
    "duration": (0, 86_400, "judgement: one day in seconds (the DARPA 1998 traffic was captured day by day)"),
    "src_bytes": (0, 1e9, "judgement: 1 GB per connection"),
    "dst_bytes": (0, 1e9, "judgement: 1 GB per connection"),
    "land": (0, 1, _INDICATOR),
    "wrong_fragment": (0, 10, _EVENT_COUNT),
    "urgent": (0, 10, _EVENT_COUNT),
    "hot": (0, 10, _EVENT_COUNT),
    "num_failed_logins": (0, 10, _EVENT_COUNT),
    "logged_in": (0, 1, _INDICATOR),
    "num_compromised": (0, 10, _EVENT_COUNT),
    "root_shell": (0, 1, _INDICATOR),
    "su_attempted": (0, 1, _INDICATOR + " (the released file also holds the value 2, clipped to 1)"),
    "num_root": (0, 10, _EVENT_COUNT),
    "num_file_creations": (0, 10, _EVENT_COUNT),
    "num_shells": (0, 10, _EVENT_COUNT),
    "num_access_files": (0, 10, _EVENT_COUNT),
    "num_outbound_cmds": (0, 10, _EVENT_COUNT),
    "is_host_login": (0, 1, _INDICATOR),
    "is_guest_login": (0, 1, _INDICATOR),
    "count": (0, 511, "connections to the same host in the past two seconds; 511 is where the "
              "released KDD'99 files saturate (informed by the public release)"),
    "srv_count": (0, 511, "connections to the same service in the past two seconds; 511 as for count"),
    "dst_host_count": (0, 255, "host-based count; described as over a window of the last 100 "
                       "connections, but the released files run to 255 (informed by the public release)"),
    "dst_host_srv_count": (0, 255, "as dst_host_count"),
}  # fmt: skip
KDD_BOUNDS.update({name: (0, 1, _RATE) for name in KDD_COLUMNS if name.endswith("_rate")})

# The heavy-tailed KDD columns: every count, size and duration (public upper bound above 1; the
# indicators and rates lie in [0, 1]). kdd_schema(numeric_scale="log") scales them logarithmically:
# against a public bound of 1 GB, the linear map sends every ordinary connection size to about 0.
KDD_LOG_COLUMNS = tuple(name for name, (_, hi, _) in KDD_BOUNDS.items() if hi > 1)
KDD_SCALES = ("log", "linear")


def _columns(
    names: tuple[str, ...],
    categories: Mapping[str, tuple[str, ...]],
    bounds: Mapping[str, tuple[float, float, str]],
    category_source: str,
    missing: bool,
    log_columns: tuple[str, ...] = (),
) -> tuple[Column, ...]:
    columns: list[Column] = []
    for name in names:
        if name in categories:
            listed = tuple(categories[name]) + ((MISSING,) if missing else ())
            source = category_source + ("; " + MISSING_SOURCE if missing else "")
            columns.append(CategoricalColumn(name, listed, source, MISSING if missing else None))
        else:
            lo, hi, source = bounds[name]
            if missing:
                source += "; a missing value is imputed with the public lower bound"
            scale = "log" if name in log_columns else "linear"
            columns.append(NumericColumn(name, lo, hi, source, lo if missing else None, scale=scale))
    return tuple(columns)


def adult_schema(constant_feature: bool = True, norm: float = 1.0, missing: bool = True) -> PublicSchema:
    """Public schema of the 14 Adult columns: adult.names categories, documented numeric bounds.

    With ``missing`` (the default, what private mode uses) a missing value
    (``?``) is a category of its own in each categorical column (feature
    ``column=?``) and is imputed with the public lower bound in a numeric
    column, so every record can be kept. d = 99 one-hot features (8 + 16 + 7
    + 14 + 6 + 5 + 2 + 41 categories listed in adult.names) + 8 missing
    categories (none without ``missing``) + 6 numeric columns + 1 constant
    feature if ``constant_feature``: 114 (106 without ``missing``).
    """
    return PublicSchema(
        columns=_columns(ADULT_COLUMNS, ADULT_CATEGORIES, ADULT_BOUNDS, ADULT_NAMES, missing),
        norm=norm,
        constant_feature=constant_feature,
    )


def kdd_schema(
    constant_feature: bool = True, norm: float = 1.0, missing: bool = True, numeric_scale: str = "log"
) -> PublicSchema:
    """Public schema of the 41 KDD Cup 99 features.

    d = 84 one-hot features (3 protocols, 70 services, 11 flags) + 3 missing
    categories (``?``, with ``missing``, the default) + 38 numeric columns + 1
    constant feature if ``constant_feature``: 126 (123 without ``missing``).
    A missing numeric value is imputed with the column's public lower bound.

    ``numeric_scale="log"`` (the default) scales the 17 heavy-tailed columns
    (:data:`KDD_LOG_COLUMNS`: sizes, duration, counts) as
    log(1 + v - lo) / log(1 + hi - lo); ``"linear"`` scales every numeric
    column as (v - lo) / (hi - lo), which with the public bound of 1 GB sends
    every ordinary connection size (hundreds to tens of thousands of bytes)
    below 1e-4. Both use the same public bounds and read no data
    (docs/datasets.md, "KDD: why the non-private error was off the paper").
    """
    check_choice("numeric_scale", numeric_scale, tuple(KDD_SCALES))
    log_columns = KDD_LOG_COLUMNS if numeric_scale == "log" else ()
    return PublicSchema(
        columns=_columns(KDD_COLUMNS, KDD_CATEGORIES, KDD_BOUNDS, NSL_KDD_ARFF, missing, log_columns),
        norm=norm,
        constant_feature=constant_feature,
    )
