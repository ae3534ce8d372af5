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

# api_key and base_url come from VIDEOGEN_API_KEY and VIDEOGEN_BASE_URL.
provider "videogen" {
  max_retries   = 4  # after 429 and 5xx answers, with back-off
  max_new_clips = 20 # a plan that would generate more fails
}
