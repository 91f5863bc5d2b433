{
  "targets": [
    {
      "target_name": "outpost_native",
      "sources": [
        "module.c",
        "icmp.c",
        "arrivals.c"
      ],
      "cflags": [
        "-O2",
        "-Wall",
        "-Wextra"
      ],
      "libraries": [
        "-lpthread"
      ]
    }
  ]
}
