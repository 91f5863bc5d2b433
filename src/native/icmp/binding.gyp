{
  "targets": [
    {
      "target_name": "outpost_icmp",
      "sources": ["icmp.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    }
  ]
}
