# Adopt a clip that was generated outside Terraform. The API does not echo
# model, prompt or seconds, so they are taken from this configuration in place
# on the first apply; echoed settings such as ratio must match the task.
import {
  to = videogen_video.launch
  id = "task_abc123"
}

resource "videogen_video" "launch" {
  model  = "videogen-1"
  prompt = "Launch-day teaser: the logo assembles from paper cut-outs"
  ratio  = "9:16"
}
