# A marketing-asset build as a CI pipeline runs it: the clips are a map, each
# one is generated once and downloaded with its checksum, and the state lives
# in a shared PostgreSQL backend so that every runner sees the same clips.
terraform {
  # optional() object attributes with defaults, used in var.clips, need 1.3.
  required_version = ">= 1.3"

  # Partial configuration: the connection string comes from the PG_CONN_STR
  # environment variable, so no credentials are written into the code.
  backend "pg" {}

  required_providers {
    videogen = {
      source  = "videogen/videogen"
      version = "~> 0.1"
    }
  }
}

# base_url and api_key come from VIDEOGEN_BASE_URL and VIDEOGEN_API_KEY, and
# the task journal from VIDEOGEN_JOURNAL_URL: the database that holds the
# state, so that a runner killed outright leaves its tasks to the next runner
# instead of a second bill.
provider "videogen" {}

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
