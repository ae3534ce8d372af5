# What `make demo` applies, and what README's "Try it by hand" runs
# `terraform init` and `terraform apply` in: `make install-local` puts this
# checkout's provider where init finds it offline, and `make mock` serves the
# mock API, so no account or network is needed.
terraform {
  required_version = ">= 1.0"

  required_providers {
    videogen = {
      source  = "videogen/videogen"
      version = "~> 0.1"
    }
  }
}

# base_url and api_key come from VIDEOGEN_BASE_URL and VIDEOGEN_API_KEY.
provider "videogen" {}

data "videogen_models" "available" {}

resource "videogen_video" "teaser" {
  model      = "videogen-1"
  prompt     = "A paper boat drifting down a rain-soaked city street at dusk, cinematic, shallow depth of field"
  seconds    = "4"
  ratio      = "16:9"
  resolution = "720p"

  timeouts {
    create = "5m"
  }
}

# The clip file, with its SHA-256. `make demo` runs Terraform on a temporary
# copy of this directory and passes a directory inside that copy here, so the
# demo leaves nothing in the repository.
variable "output_dir" {
  description = "Directory the clips are downloaded to; defaults to out/ beside this file."
  type        = string
  default     = ""
}

resource "videogen_video_file" "teaser" {
  task_id = videogen_video.teaser.task_id
  path    = "${var.output_dir != "" ? var.output_dir : "${path.module}/out"}/teaser.mp4"
}

output "model_ids" {
  description = "Models the API key may use."
  value       = data.videogen_models.available.ids
}

output "teaser_task_id" {
  description = "Task ID of the clip; also its import ID."
  value       = videogen_video.teaser.task_id
}

output "teaser_status" {
  value = videogen_video.teaser.status
}

output "teaser_url" {
  value = videogen_video.teaser.url
}

output "teaser_format" {
  value = videogen_video.teaser.format
}

output "teaser_file" {
  description = "The downloaded clip and its SHA-256, as sha256sum prints them."
  value       = "${videogen_video_file.teaser.sha256}  ${videogen_video_file.teaser.path}"
}
