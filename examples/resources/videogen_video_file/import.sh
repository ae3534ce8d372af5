# Adopt a clip that is already on disk, as <task_id>,<path>. The path must be the
# path argument exactly as written in configuration. Nothing is downloaded.
terraform import videogen_video_file.teaser task_abc123,out/teaser.mp4
