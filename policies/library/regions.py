"""Region allow-lists for data residency.

EU: the AWS and Alibaba Cloud regions inside EU member states (https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html,
https://www.alibabacloud.com/help/en/cloud-migration-guide-for-beginners/latest/regions-and-zones); adequacy
countries (UK, Switzerland) are left for a stack to add on purpose.
Mainland China: AWS China (Beijing, Ningxia) and Alibaba Cloud mainland regions; Hong Kong is not mainland.
"""

EU = (
    "eu-central-1",
    "eu-west-1",
    "eu-west-3",
    "eu-south-1",
    "eu-south-2",
    "eu-north-1",  # AWS
)
MAINLAND_CHINA = (
    "cn-north-1",
    "cn-northwest-1",  # AWS China
    "cn-qingdao",
    "cn-beijing",
    "cn-zhangjiakou",
    "cn-huhehaote",
    "cn-wulanchabu",
    "cn-hangzhou",
    "cn-shanghai",
    "cn-nanjing",
    "cn-fuzhou",
    "cn-wuhan-lr",
    "cn-shenzhen",
    "cn-heyuan",
    "cn-guangzhou",
    "cn-chengdu",  # Alibaba
)
