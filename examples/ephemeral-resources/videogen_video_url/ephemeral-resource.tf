resource "videogen_video" "opening" {
  model  = "videogen-1"
  prompt = "A paper boat drifts across a pond at dawn"
}

# A fresh download URL, read whenever Terraform needs it and never stored.
ephemeral "videogen_video_url" "opening" {
  task_id = videogen_video.opening.task_id
}

# An ephemeral value fits a write-only argument: the opening is the next clip's reference.
resource "videogen_video" "sequel" {
  model                      = "videogen-1"
  prompt                     = "The paper boat sails on into the rain"
  reference_videos_wo        = [ephemeral.videogen_video_url.opening.url]
  reference_media_wo_version = 1
}

