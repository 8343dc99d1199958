"""The stack level: what reads several wings. The rules across sections, the cluster's plan and
node auto-provisioning (both read the pools' plans), every node pool's demand at the most, and
the monthly cost."""
