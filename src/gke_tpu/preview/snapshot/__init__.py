"""Cloud snapshots: `record` asks gcloud for the facts preflight reads, `read` turns a recorded
document into answers for the program's provider functions, `shape` lists what is wrong with one."""
