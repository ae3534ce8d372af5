terraform {
  required_providers {
    videogen = {
      source = "videogen/videogen"
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

  # Leave unset to poll adaptively: five checks 0.45s apart, then every 4s.
  # poll_interval = "10s"
}
