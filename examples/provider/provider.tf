terraform {
  # Terraform 1.0 or later; OpenTofu reads the same block.
  required_version = ">= 1.0"

  required_providers {
    videogen = {
      source  = "videogen/videogen"
      version = "~> 0.1"
    }
  }
}

# Every setting can come from the environment, so the provider block can stay
# empty and the key never appears in .tf files or in version control:
#
#   export VIDEOGEN_API_KEY="..."                        # api_key
#   export VIDEOGEN_BASE_URL="https://video.example.com" # base_url, with or without /v1
provider "videogen" {
  max_retries     = 4     # retries after 429 and 5xx responses, with back-off
  request_timeout = "60s" # per HTTP attempt

  # Leave unset to poll adaptively; set it for a fixed interval between checks.
  # poll_interval = "10s"
}
