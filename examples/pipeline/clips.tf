# One generation task per clip. A clip is only regenerated (and billed again)
# when its arguments or its revision change.
resource "videogen_video" "clip" {
  for_each = var.clips

  model      = each.value.model
  prompt     = each.value.prompt
  seconds    = each.value.seconds
  ratio      = each.value.ratio
  resolution = each.value.resolution

  triggers_replace = {
    revision = each.value.revision
  }

  timeouts {
    create = "20m"
  }
}

# The downloaded clips. The files are local to each runner: a runner that does
# not have them downloads them again from the existing tasks, which generates
# nothing new.
resource "videogen_video_file" "clip" {
  for_each = var.clips

  task_id         = videogen_video.clip[each.key].task_id
  path            = "${path.root}/${var.output_dir}/${each.key}.mp4"
  file_permission = "0644"
}
