# Tests of the clips module with a mock of the provider. Terraform takes
# videogen's schema from the installed provider but never configures it or
# calls it: no API key is needed, no request leaves the machine, nothing is
# generated or billed. Computed attributes that a mock_resource does not set
# get made-up values.
mock_provider "videogen" {
  mock_resource "videogen_video" {
    defaults = {
      task_id = "task-mock"
      status  = "succeeded"
      url     = "https://clips.example.com/task-mock.mp4"
    }
  }

  mock_resource "videogen_video_file" {
    defaults = {
      sha256     = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
      size_bytes = 4
    }
  }
}

variables {
  clips = {
    hero = {
      model   = "videogen-2"
      prompt  = "A slow aerial shot over a coastal town at sunrise"
      seconds = 8
    }
    story = {
      model  = "videogen-1"
      prompt = "A hand sketching a product logo on paper, top-down view"
      ratio  = "9:16"
    }
  }
}

run "plans_one_task_and_one_file_per_clip" {
  command = plan

  assert {
    condition     = length(videogen_video.clip) == 2 && length(videogen_video_file.clip) == 2
    error_message = "Expected one videogen_video and one videogen_video_file per clip."
  }

  assert {
    condition     = videogen_video.clip["hero"].seconds == "8" && videogen_video.clip["story"].seconds == "5"
    error_message = "A clip's seconds should be sent as given, or the module's default of 5."
  }

  assert {
    condition     = videogen_video.clip["hero"].ratio == "16:9" && videogen_video.clip["story"].ratio == "9:16"
    error_message = "A clip's ratio should be sent as given, or the module's default of 16:9."
  }

  assert {
    condition     = videogen_video_file.clip["story"].path == "out/story.mp4"
    error_message = "Each clip should be written to <output_dir>/<name>.mp4."
  }
}

run "applies_with_the_mocked_values" {
  assert {
    condition     = output.task_ids == { hero = "task-mock", story = "task-mock" }
    error_message = "The task_ids output should hold each clip's task ID."
  }

  assert {
    condition     = output.files["hero"].sha256 == "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    error_message = "The files output should hold each file's SHA-256."
  }
}

run "rejects_clips_over_the_budget" {
  command = plan

  variables {
    clips = {
      epic = {
        model   = "videogen-2"
        prompt  = "A ten-minute documentary"
        seconds = 600
      }
    }
  }

  expect_failures = [var.clips]
}
