output "task_ids" {
  description = "Task ID of each clip."
  value       = { for name, clip in videogen_video.clip : name => clip.task_id }
}

output "files" {
  description = "Path, size and SHA-256 checksum of each downloaded clip."
  value = {
    for name, file in videogen_video_file.clip : name => {
      path       = file.path
      size_bytes = file.size_bytes
      sha256     = file.sha256
    }
  }
}
