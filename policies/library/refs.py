"""Where rule references point: one place for the documents rules cite."""

SECURITY_HUB = "https://docs.aws.amazon.com/securityhub/latest/userguide/{}-controls.html"
HIPAA = (
    "45 CFR {}"  # HIPAA Security Rule, https://www.ecfr.gov/current/title-45/subtitle-A/subchapter-C/part-164/subpart-C
)
GDPR = "GDPR {}"  # Regulation (EU) 2016/679, https://eur-lex.europa.eu/eli/reg/2016/679/oj
MLPS = "GB/T 22239-2019 {}"  # 信息安全技术 网络安全等级保护基本要求, level 3 = clause 8
