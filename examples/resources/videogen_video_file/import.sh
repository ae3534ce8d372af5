# Adopt a clip that is already on disk, as <task_id>,<path>. The path may be
# spelled as in configuration or any other way that names the same file
# (out/teaser.mp4, ./out/teaser.mp4, or the absolute path). Nothing is downloaded.
terraform import videogen_video_file.teaser task_abc123,out/teaser.mp4
