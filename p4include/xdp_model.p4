// placeholder: written by the p4include work
