# Adopt a clip that a script already downloaded, without downloading it again.
import {
  to = videogen_video_file.teaser
  id = "${videogen_video.teaser.task_id},${path.module}/out/teaser.mp4"
}
