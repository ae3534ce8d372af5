# A marketing-asset build as a CI pipeline runs it: clips from a map, each
# generated once and downloaded with its checksum, state in PostgreSQL.
terraform {
  # optional() object attributes with defaults, used in var.clips, need 1.3.
  required_version = ">= 1.3"

  # The connection string comes from PG_CONN_STR, out of the code.
  backend "pg" {}

  required_providers {
    videogen = {
      source  = "videogen/videogen"
      version = "~> 0.1"
    }
  }
}

# base_url, api_key and the task journal come from VIDEOGEN_BASE_URL,
# VIDEOGEN_API_KEY and VIDEOGEN_JOURNAL_URL (the state's database, so that a
# runner killed outright leaves its tasks to the next runner).
provider "videogen" {
  max_new_clips = var.max_new_clips
}

variable "max_new_clips" {
  description = "The most new clips one plan may generate (TF_VAR_max_new_clips in a pipeline); null for no limit."
  type        = number
  default     = null
}

variable "clips" {
  description = "Clips to build, by name. Changing a clip's revision regenerates it on purpose."
  type = map(object({
    model      = string
    prompt     = string
    seconds    = string
    ratio      = string
    resolution = string
    revision   = optional(string, "1")
  }))
  default = {
    hero = {
      model      = "videogen-2"
      prompt     = "A slow aerial shot over a coastal town at sunrise, warm light, gentle waves"
      seconds    = "8"
      ratio      = "16:9"
      resolution = "1080p"
    }
    story = {
      model      = "videogen-1"
      prompt     = "A hand sketching a product logo on paper, top-down view, soft shadows"
      seconds    = "6"
      ratio      = "9:16"
      resolution = "720p"
    }
    square = {
      model      = "videogen-1-fast"
      prompt     = "A looping animation of coffee beans falling into a cup, studio lighting"
      seconds    = "4"
      ratio      = "1:1"
      resolution = "720p"
    }
  }
}

variable "output_dir" {
  description = "Directory, relative to the working directory, that receives the clip files."
  type        = string
  default     = "out"
}
