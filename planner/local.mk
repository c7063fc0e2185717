# planner/
