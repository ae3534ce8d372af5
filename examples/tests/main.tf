# A small module of clips, the kind a team keeps for its marketing assets:
# each entry of var.clips is one generation task and its downloaded file.
# The .tftest.hcl files in tests/ check it with `terraform test` (or
# `tofu test`) against a mock of the provider: no clip is generated, nothing
# is billed and no API key is needed.
terraform {
  # mock_provider and override_resource in the tests need Terraform 1.7
  # (OpenTofu 1.8); the module itself runs on 1.3 and later.
  required_version = ">= 1.3"

  required_providers {
    videogen = {
      source  = "videogen/videogen"
      version = "~> 0.1"
    }
  }
}

variable "clips" {
  description = "Clips to make, by name. Bumping a clip's revision makes it again, on purpose (and bills it); download = false keeps the task without a local file."
  type = map(object({
    model    = string
    prompt   = string
    seconds  = optional(number, 5)
    ratio    = optional(string, "16:9")
    revision = optional(string, "1")
    download = optional(bool, true)
  }))

  validation {
    condition     = alltrue([for c in values(var.clips) : c.seconds >= 1 && c.seconds <= 12])
    error_message = "Every clip's seconds must be between 1 and 12: longer clips cost more than this module's budget allows."
  }
}

variable "output_dir" {
  description = "Directory that receives the clip files, relative to the working directory."
  type        = string
  default     = "out"
}

resource "videogen_video" "clip" {
  for_each = var.clips

  model   = each.value.model
  prompt  = each.value.prompt
  seconds = tostring(each.value.seconds)
  ratio   = each.value.ratio

  triggers_replace = {
    revision = each.value.revision
  }
}

resource "videogen_video_file" "clip" {
  for_each = { for name, clip in var.clips : name => clip if clip.download }

  task_id = videogen_video.clip[each.key].task_id
  path    = "${var.output_dir}/${each.key}.mp4"

  lifecycle {
    # A clip that did not succeed has nothing to download; say so by name.
    precondition {
      condition     = videogen_video.clip[each.key].status == "succeeded"
      error_message = "Clip ${each.key} did not succeed (status ${videogen_video.clip[each.key].status}); nothing to download."
    }
  }
}

output "task_ids" {
  description = "Task ID of each clip."
  value       = { for name, clip in videogen_video.clip : name => clip.task_id }
}

output "files" {
  description = "Path and SHA-256 of each downloaded clip."
  value = {
    for name, file in videogen_video_file.clip : name => {
      path   = file.path
      sha256 = file.sha256
    }
  }
}
